import type { Logger } from '@smsauth/service-kit';
import { HttpError } from '@smsauth/service-kit';
import type { RequestHandler } from 'express';
import type { DeliveryMetrics } from '../domain/delivery-metrics';
import { DeliveryAuthError, verifyDeliveryAuthorization, type DeliveryTokenPolicy } from '../domain/delivery-token';
import type { IpAllowList } from '../domain/ip-allow-list';
import { secretsMatch } from '../domain/constant-time';
import { presentedOutboxToken } from '../domain/outbox-token';

/** 403 for callers outside `ALLOWED_IPS`; `req.ip` follows the TRUST_PROXY setting. */
export function requireAllowedIp(allowList: IpAllowList, metrics: DeliveryMetrics): RequestHandler {
  return (req, _res, next) => {
    if (allowList.allows(req.ip)) return next();
    metrics.rejections.inc({ reason: 'forbidden' });
    req.log.warn({ callerIp: req.ip }, 'delivery refused: caller address is not in ALLOWED_IPS');
    next(new HttpError(403, 'forbidden', 'The caller address is not allowed to use this gateway'));
  };
}

/** 401 unless the request carries a valid delivery token (see verifyDeliveryAuthorization). */
export function requireDeliveryToken(policy: DeliveryTokenPolicy, metrics: DeliveryMetrics): RequestHandler {
  return (req, _res, next) => {
    try {
      verifyDeliveryAuthorization(req.headers.authorization, policy);
      next();
    } catch (err) {
      if (err instanceof DeliveryAuthError) {
        metrics.rejections.inc({ reason: 'unauthorized' });
        req.log.warn({ reason: err.reason }, `delivery refused: ${err.errorDescription}`);
      }
      next(err);
    }
  };
}

/** `Authorization: Bearer <OUTBOX_TOKEN>`, compared in constant time. */
export function requireOutboxToken(expected: string, logger: Logger): RequestHandler {
  return (req, _res, next) => {
    const header = req.headers.authorization;
    const token = presentedOutboxToken(header);
    if (token !== undefined && secretsMatch(token, expected)) return next();
    logger.warn({ tokenPresented: token !== undefined }, 'outbox access refused');
    next(
      new HttpError(401, 'invalid_token', token === undefined ? 'Authorization: Bearer <OUTBOX_TOKEN> is required' : 'The outbox token is wrong', {
        headers: { 'WWW-Authenticate': token === undefined ? 'Bearer' : 'Bearer error="invalid_token"' },
      }),
    );
  };
}
