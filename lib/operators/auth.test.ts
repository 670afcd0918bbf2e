import { describe, expect, it } from 'vitest';
import { cookieValues, sessionCookie, sessionCookieName } from './auth';

const on = (publicBaseUrl: string) => ({ config: { publicBaseUrl, operatorWallets: [] } });

describe('the session cookie', () => {
  it('is __Host-operator_session on Path=/, Secure, where the origin is https', () => {
    const https = on('https://passes.example.com');
    expect(sessionCookieName(https)).toEqual({ name: '__Host-operator_session', path: '/' });
    expect(sessionCookie(https, 'wpcs_t', 60)).toBe('__Host-operator_session=wpcs_t; Path=/; HttpOnly; SameSite=Strict; Max-Age=60; Secure');
  });

  it('keeps its plain name and the operator path on http://localhost, where no prefix can hold', () => {
    const local = on('http://localhost:3000');
    expect(sessionCookieName(local)).toEqual({ name: 'operator_session', path: '/api/v1/operator' });
    expect(sessionCookie(local, 'wpcs_t', 60)).toBe('operator_session=wpcs_t; Path=/api/v1/operator; HttpOnly; SameSite=Strict; Max-Age=60');
  });

  it('is read with every value a browser sends, in order', () => {
    expect(cookieValues('operator_session=a; theme=dark; operator_session=b;operator_session= c ', 'operator_session')).toEqual(['a', 'b', 'c']);
    expect(cookieValues('__Host-operator_session=a', 'operator_session')).toEqual([]);
    expect(cookieValues(null, 'operator_session')).toEqual([]);
  });
});
