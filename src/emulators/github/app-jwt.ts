import { verify } from 'node:crypto';
import type { AppRecord, AppRegistry } from './app-state.js';

/** GitHub's answers to a JSON web token it refuses, word for word (clients match on them). */
export const JWT_MESSAGES = {
  undecodable: 'A JSON web token could not be decoded',
  expTooFar: "'Expiration time' claim ('exp') is too far in the future",
  expired:
    "'Expiration time' claim ('exp') must be a numeric value representing the future time at which the assertion expires",
  iatFuture:
    "'Issued at' claim ('iat') must be an Integer representing the time that the assertion was issued",
} as const;

/** The longest life GitHub gives an App's JWT, and the clock skew it forgives an `iat`. */
const MAX_LIFETIME_S = 600;
const IAT_SKEW_S = 60;

export type JwtCheck = { ok: true; app: AppRecord } | { ok: false; message: string };

function json(part: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** Whether a bearer credential has a JWT's shape (three base64url parts), as opposed to a token. */
export function looksLikeJwt(credential: string): boolean {
  return /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(credential);
}

/**
 * Checks an App's JWT as GitHub does: RS256 signed with the key of the App its `iss` names (App id or
 * client id), `iat` not in the future beyond a minute of skew, `exp` in the future and at most ten
 * minutes after `iat` and after now.
 */
export function checkJwt(jwt: string, apps: AppRegistry, nowMs: number): JwtCheck {
  const refuse = (message: string): JwtCheck => ({ ok: false, message });
  if (!looksLikeJwt(jwt)) return refuse(JWT_MESSAGES.undecodable);
  const [headerPart = '', payloadPart = '', signaturePart = ''] = jwt.split('.');
  const header = json(headerPart);
  const payload = json(payloadPart);
  if (!header || !payload || header.alg !== 'RS256') return refuse(JWT_MESSAGES.undecodable);
  const app = apps.byIssuer(payload.iss);
  if (!app) return refuse(JWT_MESSAGES.undecodable);
  const signed = Buffer.from(`${headerPart}.${payloadPart}`);
  if (!verify('RSA-SHA256', signed, app.publicKey, Buffer.from(signaturePart, 'base64url'))) {
    return refuse(JWT_MESSAGES.undecodable);
  }
  const now = Math.floor(nowMs / 1000);
  const { iat, exp } = payload;
  if (typeof iat !== 'number' || !Number.isInteger(iat) || iat > now + IAT_SKEW_S) {
    return refuse(JWT_MESSAGES.iatFuture);
  }
  if (typeof exp !== 'number' || exp <= now) return refuse(JWT_MESSAGES.expired);
  if (exp - iat > MAX_LIFETIME_S || exp > now + MAX_LIFETIME_S) return refuse(JWT_MESSAGES.expTooFar);
  return { ok: true, app };
}
