// Kept in the service kit, below both the stack and the kit's own tests (no package cycle).
export { freePort, isPortInUse } from '@smsauth/service-kit';
