import { mountOperations, probeDeclarations, type Operation } from '@smsauth/service-kit';
import { Router, type Express, type RequestHandler } from 'express';
import type { DeliveryService } from '../domain/deliver';
import type { MessageStatusService } from '../domain/message-statuses';
import { buildOpenApiDocument } from '../domain/openapi';
import type { OutboxStore } from '../store/outbox-store';
import { deliveryOperation } from './delivery';
import { readReceiptBytes, requireJsonObjectBody } from './guards';
import { messageStatusOperation, providerEventsOperation, receiptOperation } from './messages';
import { openApiOperation } from './openapi';
import { outboxOperations } from './outbox';
import { outboxPageOperation } from './outbox-page';

export interface GatewayServices {
  delivery: DeliveryService;
  messageStatuses: MessageStatusService;
  outbox: OutboxStore;
}

/** What the configuration turns on; it shapes the operations served and so the document. */
export interface GatewayRouteOptions {
  /** GATEWAY_AUTH_SECRET is set: delivery operations demand the bearer delivery token. */
  authEnabled: boolean;
  /** The outbox API and page are served (outbox provider, and OUTBOX_TOKEN in production). */
  outboxRoutes: boolean;
  /** OUTBOX_TOKEN: the outbox API and page demand it. */
  outboxToken?: string;
  /** GATEWAY_PUBLIC_URL: providers send receipts to POST /receipts/{provider}/{id}. */
  publicUrl?: string;
}

/** Every operation of the gateway's own, declared once each; the document lists exactly these (and the kit's probes). */
export function gatewayOperations(services: GatewayServices, options: GatewayRouteOptions): Operation[] {
  return [
    deliveryOperation(services.delivery, options.authEnabled),
    messageStatusOperation(services.messageStatuses, options.authEnabled),
    ...(options.publicUrl !== undefined ? [receiptOperation(services.messageStatuses, options.publicUrl), providerEventsOperation(services.messageStatuses, options.publicUrl)] : []),
    ...(options.outboxRoutes ? [...outboxOperations(services.outbox, options.outboxToken !== undefined), outboxPageOperation(services.outbox, options.outboxToken)] : []),
  ];
}

export interface GatewayGuards {
  /** ALLOWED_IPS, then the delivery token: `POST /sms` and `GET /messages/{id}`. */
  delivery: RequestHandler[];
  /** The OUTBOX_TOKEN check of the outbox API (the page checks its own, it also takes a cookie). */
  outbox: RequestHandler[];
}

/** The operations with `GET /openapi.json`, which serves their document (the kit's probes listed too: createServiceApp serves them). */
export function withOpenApiDocument(version: string, operations: readonly Operation[], probes: readonly Operation[]): { served: Operation[]; document: Record<string, unknown> } {
  let document: Record<string, unknown> = {};
  const served = [...operations, openApiOperation(() => document)];
  document = buildOpenApiDocument({ version, operations: [...served, ...probes] });
  return { served, document };
}

/** Mounts the served operations, each behind the guards it needs before its inputs are read. */
export function mountGatewayOperations(app: Express, served: readonly Operation[], guards: GatewayGuards): void {
  const before: Record<string, RequestHandler[]> = {
    deliverSms: [...guards.delivery, requireJsonObjectBody],
    getMessageStatus: guards.delivery,
    receiveDeliveryReceipt: [readReceiptBytes],
    receiveProviderEvents: [readReceiptBytes],
    listOutboxMessages: guards.outbox,
    clearOutbox: guards.outbox,
  };
  app.use(mountOperations(Router(), served, { guards: (operation) => before[operation.operationId ?? ''] ?? [] }));
}

/**
 * The document a gateway configured with `options` serves, without building one: the API
 * reference (scripts/docs) renders it. The operations' handlers are never called here.
 */
export function gatewayOpenApiDocument(version: string, options: GatewayRouteOptions): Record<string, unknown> {
  const operations = gatewayOperations({} as GatewayServices, options);
  return withOpenApiDocument(version, operations, probeDeclarations()).document;
}
