// Input that does not match its schema is an invalid_request listing every bad field.
import type { z } from 'zod';
import { AppError } from './errors';

export function invalidInput(error: z.ZodError): AppError {
  const fields = error.issues.map((issue) => ({
    field: issue.path.map(String).join('.') || 'body',
    message: issue.message,
  }));
  return new AppError('invalid_request', fields.map((f) => `${f.field} ${f.message}`).join('; '), { fields });
}

/** The first problem of a failed parse: zod fails a parse only with at least one issue. */
export function firstIssue(error: z.ZodError): z.core.$ZodIssue {
  const [issue] = error.issues;
  if (!issue) throw new Error('zod failed a parse without an issue');
  return issue;
}

/** Validates input against a schema; a failure is a 400 listing every bad field. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw invalidInput(result.error);
}
