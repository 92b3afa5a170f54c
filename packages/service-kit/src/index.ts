export * from './app';
export * from './cluster';
export * from './config';
export * from './errors';
export * from './html';
export * from './lifecycle';
export * from './logger';
export * from './mask';
export * from './memory-logger';
export * from './metrics';
export * from './request-id';
export * from './serve';
export * from './run-service';
// Re-exported so that the built type declarations carry pino-http's augmentation of
// IncomingMessage (`req.log`) to every service that compiles against the kit.
export type { HttpLogger } from 'pino-http';
