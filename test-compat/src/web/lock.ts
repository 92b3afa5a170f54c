import { build } from 'esbuild';

/**
 * Auth0's Lock as an app bundles it: auth0-lock's npm package ships only its CommonJS build
 * (lib/), so the test bundles it for the browser, unchanged, as a webpack or esbuild user would
 * (`Auth0Lock` and `Auth0LockPasswordless` on window, as Auth0's CDN build defines them).
 */
export async function lockBrowserBundle(): Promise<string> {
  const result = await build({
    stdin: {
      contents: "window.Auth0LockPasswordless = require('auth0-lock/lib/passwordless').default;",
      resolveDir: __dirname,
    },
    bundle: true,
    format: 'iife',
    minify: true,
    write: false,
    define: { 'process.env.NODE_ENV': '"production"', global: 'window' },
    logLevel: 'error',
  });
  return result.outputFiles[0]!.text;
}
