/** The number the quick start signs in with, and the local stack's first operator (role Admin). */
export const DEMO_PHONE_NUMBER = '+14155550100';
