// An error code as an RFC 9457 problem (application/problem+json), and the zod schema of that
// body, from which the API reference documents every error answer.
import { z } from 'zod';
import { type AppError, PROBLEM_CODES, PROBLEMS, type Problem, problemType } from '../errors';

export const problemSchema = z
  .object({
    type: z.string().meta({ description: 'A reference to this code’s entry in the API reference: /docs#problem-<code>.' }),
    title: z.string().meta({ description: 'A short summary of the code; the same for every instance.' }),
    status: z.number().int().min(400).max(599).meta({ description: 'The HTTP status code.' }),
    detail: z.string().meta({ description: 'What went wrong with this request, for people.' }),
    code: z.enum(PROBLEM_CODES).meta({
      description: 'Stable, machine-readable: branch on this.',
      'x-enumDescriptions': Object.fromEntries(PROBLEM_CODES.map((code) => [code, PROBLEMS[code].when])),
    }),
    fields: z
      .array(z.object({ field: z.string(), message: z.string() }))
      .optional()
      .meta({ description: 'With invalid_request: each bad field (`body` for the body as a whole) and what is wrong with it.' }),
    requestId: z.string().optional().meta({ description: 'With 5xx answers: the id that finds this request in the logs.' }),
    opensAt: z.string().optional().meta({ description: 'With program_closed, for a program not open yet: when it opens (ISO 8601).' }),
  })
  .meta({ id: 'Problem', description: 'An RFC 9457 problem: every error answer has this shape, as application/problem+json.' }) satisfies z.ZodType<Problem>;

export function toProblem(error: AppError, requestId?: string): Problem {
  const { status, title } = PROBLEMS[error.code];
  return {
    type: problemType(error.code),
    title,
    status,
    detail: error.detail,
    code: error.code,
    ...(error.extra.fields ? { fields: error.extra.fields } : {}),
    ...(error.extra.opensAt ? { opensAt: error.extra.opensAt } : {}),
    ...(requestId && status >= 500 ? { requestId } : {}),
  };
}
