export * from './property';
export * from './tcp-proxy';
export * from './jwt-craft';
export * from './service-process';
export * from './http-stubs';
export * from './key-pairs';
export * from './openapi-fuzz';
