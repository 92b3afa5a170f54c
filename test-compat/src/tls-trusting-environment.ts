import { readFileSync } from 'node:fs';
import { TestEnvironment } from 'jest-environment-node';
import { trustCertificate } from './trust';

/**
 * jest's node environment, in a process that trusts the suite's self-signed certificate while a
 * test-compat file runs.
 *
 * Why here: NODE_EXTRA_CA_CERTS is read only when a process starts, and jest runs the tests in
 * its own, already running, process when it runs in band (one CPU, --runInBand, CI on 2 cores);
 * and a test file runs in a vm context whose globalThis is not the one Node's fetch reads its
 * dispatcher from. The environment module is loaded outside that context, in band and in
 * workers alike, so trusting the certificate here reaches every SDK; teardown undoes it.
 */
export default class TlsTrustingEnvironment extends TestEnvironment {
  private untrust?: () => void;

  override async setup(): Promise<void> {
    await super.setup();
    const caFile = process.env.COMPAT_CA_FILE;
    if (!caFile) throw new Error('COMPAT_CA_FILE is not set: the global setup of test-compat did not run');
    this.untrust = trustCertificate(readFileSync(caFile, 'utf8'));
  }

  override async teardown(): Promise<void> {
    this.untrust?.();
    await super.teardown();
  }
}
