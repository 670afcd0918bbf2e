import type { z } from 'zod';
import { AppError } from '../errors';

/** Validates input against a schema; a failure is a 400 listing every bad field. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const fields = result.error.issues.map((issue) => ({
    field: issue.path.map(String).join('.') || 'body',
    message: issue.message,
  }));
  throw new AppError('invalid_request', fields.map((f) => `${f.field} ${f.message}`).join('; '), { fields });
}
