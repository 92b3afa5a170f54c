export * from './launcher';
export * from './management-client';
export * from './outbox';
export * from './ports';
export * from './processes';
export * from './seed';
export * from './state';
export * from './try-it';
