/**
 * WCAG 2.x contrast, so a tenant's colours cannot make the hosted pages unreadable: text on a
 * colour is black or white, whichever contrasts more, and a colour used for text (links,
 * secondary buttons, focus rings) is darkened or lightened until it reaches AA (4.5:1).
 */

/** `#rrggbb` -> [r, g, b] in 0..255; undefined for anything else. */
export function parseHexColor(color: string): [number, number, number] | undefined {
  const match = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(color.trim());
  return match ? [parseInt(match[1]!, 16), parseInt(match[2]!, 16), parseInt(match[3]!, 16)] : undefined;
}

function toHex(rgb: readonly number[]): string {
  return `#${rgb.map((channel) => Math.round(channel).toString(16).padStart(2, '0')).join('')}`;
}

/** WCAG relative luminance of a `#rrggbb` colour (0 black .. 1 white). */
export function relativeLuminance(color: string): number {
  const rgb = parseHexColor(color);
  if (!rgb) throw new Error(`not a #rrggbb colour: ${color}`);
  const [r, g, b] = rgb.map((channel) => {
    const c = channel / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** WCAG contrast ratio of two colours, 1 to 21. */
export function contrastRatio(a: string, b: string): number {
  const [light, dark] = [relativeLuminance(a), relativeLuminance(b)].sort((x, y) => y - x) as [number, number];
  return (light + 0.05) / (dark + 0.05);
}

/** Black or white, whichever contrasts more with `background` (always at least 4.58:1). */
export function textColorOn(background: string): '#000000' | '#ffffff' {
  return contrastRatio('#000000', background) > contrastRatio('#ffffff', background) ? '#000000' : '#ffffff';
}

/** AA for normal text. */
export const AA_TEXT_CONTRAST = 4.5;

/**
 * `color` itself when it contrasts enough with `background`, else the nearest colour towards
 * black (on a light background) or white (on a dark one) that does, in small steps so the
 * brand's hue is kept as far as it can be.
 */
export function ensureContrast(color: string, background: string, minimum = AA_TEXT_CONTRAST): string {
  const rgb = parseHexColor(color);
  if (!rgb) throw new Error(`not a #rrggbb colour: ${color}`);
  if (contrastRatio(color, background) >= minimum) return toHex(rgb);
  const target = textColorOn(background) === '#000000' ? 0 : 255;
  for (let step = 1; step <= 20; step++) {
    const mix = toHex(rgb.map((channel) => channel + (target - channel) * (step / 20)));
    if (contrastRatio(mix, background) >= minimum) return mix;
  }
  return textColorOn(background);
}
