import type { Page } from 'playwright-core';

/** A key of the login pages' translation files (`prompt.screen.key`): shown raw, its text is missing. */
export const RAW_MESSAGE_KEY = /\b(?:smsauth|login-id|login-passwordless|passkeys|logout|common)\.[a-z-]+\.[A-Za-z-]+\b/;

/**
 * What is wrong with the page's layout as it is now: the document wider than the window; any
 * shown element with text of its own (or a form control) whose content is wider than its box;
 * a raw message key in the text or in an attribute (alt, title, aria-*, data-done...). A
 * visually-hidden text (clipped on purpose for screen readers) is not a box to fit in.
 */
export async function layoutProblems(page: Page): Promise<string[]> {
  return page.evaluate((rawKey) => {
    interface Node {
      nodeType: number;
      textContent: string | null;
    }
    interface Box {
      tagName: string;
      textContent: string | null;
      scrollWidth: number;
      clientWidth: number;
      offsetParent: unknown;
      childNodes: ArrayLike<Node>;
      closest(selector: string): unknown;
    }
    const document = (globalThis as unknown as { document: { documentElement: Box & { outerHTML: string }; querySelectorAll(selector: string): ArrayLike<Box> } }).document;
    const problems: string[] = [];
    const doc = document.documentElement;
    if (doc.scrollWidth > doc.clientWidth + 1) problems.push(`document ${doc.scrollWidth} > ${doc.clientWidth}`);
    const ownText = (box: Box) => Array.from(box.childNodes).some((child) => child.nodeType === 3 && (child.textContent ?? '').trim() !== '');
    for (const box of Array.from(document.querySelectorAll('body *'))) {
      const control = /^(INPUT|SELECT|BUTTON|TEXTAREA)$/.test(box.tagName);
      if (!control && !ownText(box)) continue;
      if (box.offsetParent === null || box.clientWidth === 0 || box.closest('.visually-hidden')) continue;
      if (box.scrollWidth > box.clientWidth + 1) problems.push(`${box.tagName.toLowerCase()} "${box.textContent?.trim().slice(0, 40)}" ${box.scrollWidth} > ${box.clientWidth}`);
    }
    const raw = new RegExp(rawKey).exec(doc.outerHTML);
    if (raw) problems.push(`raw key shown: ${raw[0]}`);
    return problems;
  }, RAW_MESSAGE_KEY.source);
}
