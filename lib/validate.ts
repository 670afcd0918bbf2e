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

/**
 * The bidirectional controls: embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069)
 * and the marks (U+200E, U+200F, U+061C). In text that people read (a void reason shown to door
 * staff, a key's name) they make it read otherwise than it is ("refunded\u202Ednuf"); letters of
 * right-to-left scripts need none of them to display.
 */
export const BIDI_CONTROLS = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
export const NO_BIDI_CONTROLS = 'must not contain bidirectional control characters (U+202A-U+202E, U+2066-U+2069, U+200E, U+200F, U+061C)';
