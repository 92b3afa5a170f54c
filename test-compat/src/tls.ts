import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { createServer, type Server } from 'node:https';
import { generate } from 'selfsigned';

export interface LocalCertificate {
  /** PEM of the self-signed certificate: what a client must trust. */
  cert: string;
  /** PEM of its private key: kept in memory (and the terminator), never written to the repository. */
  key: string;
}

/** A fresh self-signed certificate for localhost and 127.0.0.1, valid for a day. */
export async function createLocalCertificate(): Promise<LocalCertificate> {
  const notBeforeDate = new Date(Date.now() - 60_000);
  const generated = await generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notBeforeDate,
    notAfterDate: new Date(notBeforeDate.getTime() + 24 * 3600 * 1000),
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: [{ type: 2, value: 'localhost' }, { type: 7, ip: '127.0.0.1' }] },
    ],
  });
  return { cert: generated.cert, key: generated.private };
}

/**
 * Headers about one connection (RFC 9110 7.6.1), which a proxy must not pass on: forwarding
 * identity's `Keep-Alive: timeout=…` told clients the terminator's sockets lived as long as
 * identity's, and a client reusing one after the terminator's own 5 s closed it got ECONNRESET.
 */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer']);
function withoutHopByHop(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !HOP_BY_HOP.has(name.toLowerCase())));
}

/**
 * An https server that forwards every request, as it came, to identity's plain http port: the
 * TLS terminator a deployment puts in front of identity, so the SDKs get the https:// URLs they
 * build from a domain. Identity itself is not changed.
 */
export async function startTlsTerminator(certificate: LocalCertificate, targetPort: number, port = 0): Promise<Server> {
  const server = createServer({ cert: certificate.cert, key: certificate.key }, (req, res) => {
    const upstream = httpRequest(
      { host: '127.0.0.1', port: targetPort, method: req.method, path: req.url, headers: { ...withoutHopByHop(req.headers), 'x-forwarded-proto': 'https' } },
      (upstreamRes) => {
        res.writeHead(upstreamRes.statusCode ?? 502, withoutHopByHop(upstreamRes.headers));
        upstreamRes.pipe(res);
      },
    );
    upstream.on('error', (err) => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`identity is unreachable: ${err.message}`);
    });
    req.pipe(upstream);
  });
  // As long as identity's own (service-kit), as a production proxy keeps it: with Node's 5 s, a
  // client keeping its connections for a later command (auth0-deploy-cli's Node API, dump then
  // deploy in one process) had a pooled connection reset under it (ECONNRESET).
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return server;
}
