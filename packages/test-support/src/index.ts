export * from './property';
