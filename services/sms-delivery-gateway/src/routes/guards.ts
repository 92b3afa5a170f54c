import type { Logger } from '@smsauth/service-kit';
import express, { type RequestHandler } from 'express';
import type { DeliveryMetrics } from '../domain/delivery-metrics';
import { verifyDeliveryAuthorization, type DeliveryTokenPolicy } from '../domain/delivery-token';
import { callerNotAllowed, DeliveryAuthError, deliveryBodyNotJsonObject, outboxTokenRefused } from '../domain/errors';
import type { IpAllowList } from '../domain/ip-allow-list';
import { secretsMatch } from '../domain/constant-time';
import { presentedOutboxToken } from '../domain/outbox-token';

/** 403 for callers outside `ALLOWED_IPS`; `req.ip` follows the TRUST_PROXY setting. */
export function requireAllowedIp(allowList: IpAllowList, metrics: DeliveryMetrics): RequestHandler {
  return (req, _res, next) => {
    if (allowList.allows(req.ip)) return next();
    metrics.rejections.inc({ reason: 'forbidden' });
    req.log.warn({ callerIp: req.ip }, 'delivery refused: caller address is not in ALLOWED_IPS');
    next(callerNotAllowed());
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
    const token = presentedOutboxToken(req.headers.authorization);
    if (token !== undefined && secretsMatch(token, expected)) return next();
    logger.warn({ tokenPresented: token !== undefined }, 'outbox access refused');
    next(outboxTokenRefused(token !== undefined));
  };
}

/**
 * A body its schema can judge: express.json leaves other content types unparsed (undefined)
 * and accepts arrays and strings; this says so rather than listing the missing fields.
 */
export const requireJsonObjectBody: RequestHandler = (req, _res, next) => {
  const body: unknown = req.body;
  if (typeof body === 'object' && body !== null && !Array.isArray(body)) return next();
  next(deliveryBodyNotJsonObject());
};

/** A delivery receipt's bytes, whatever their type (a signature covers them); receipts are small: Twilio's is well under 4 kB. */
export const readReceiptBytes: RequestHandler = express.raw({ type: () => true, limit: '64kb' });
