import { describe, expect, it } from 'vitest';
import { loggableError } from './log';

describe('loggableError', () => {
  it('keeps what finds the bug (type, code, message, the first frames) and never a statement or its parameters', () => {
    const failure = Object.assign(new Error('interval out of range'), {
      code: '22008',
      query: `select * from device_registrations where device_library_identifier = $1 ${'and true '.repeat(100)}`,
      params: ['399477dd10017b5e106c9a5c0409d0cd', '9223372036854775807'],
    });
    const wrapped = new Error(`Failed query: ${failure.query}\nparams: ${failure.params.join(',')}`, { cause: failure });
    for (const error of [failure, wrapped]) {
      const logged = JSON.stringify(loggableError(error));
      expect(logged).toContain('interval out of range');
      expect(logged).toContain('22008');
      expect(logged).toContain('log.test.ts');
      expect(logged).not.toContain('399477dd');
      expect(logged).not.toContain('9223372036854775807');
      expect(logged).not.toContain('device_registrations');
      expect(logged.length).toBeLessThan(1000);
    }
    expect(loggableError('a string')).toMatchObject({ message: 'a string' });
  });
});
