import { PollingWorker, type PollingWorkerOptions } from '../polling-worker';
import type { LogStreamDeliverer } from './delivery';

import { systemTimers, type Timers } from './timers';

export { systemTimers, type Timers };

export type LogStreamWorkerOptions = PollingWorkerOptions;

/**
 * Runs the deliverer in a loop: a pass over the due streams, then the next one at once while
 * some stream has a full batch waiting, otherwise after pollMs. stop() waits for the pass in
 * progress, so a shutdown never cuts a delivery's write-back short.
 */
export class LogStreamWorker extends PollingWorker {
  constructor(deliverer: LogStreamDeliverer, options: LogStreamWorkerOptions) {
    super(async () => (await deliverer.deliverDue()).more, {
      ...options,
      messages: { failed: 'log stream delivery pass failed; retrying', resumed: 'log stream delivery resumed' },
    });
  }
}
