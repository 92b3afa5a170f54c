/** The verified JWT payload, as the handler sees it in `req.auth`. */
export type JwtClaims = Record<string, unknown> & {
  iss: string;
  aud: string | string[];
  exp: number;
  sub?: string;
  scope?: string;
};

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** Claims of the token the gateway verified for this operation (absent on open operations). */
      auth?: JwtClaims;
    }
  }
}
