import { contrastRatio, ensureContrast, relativeLuminance, textColorOn } from '../../src/domain/branding/contrast';
import { brandStylesheet, safeHttpsUrl } from '../../src/routes/authorize/brand';

describe('WCAG contrast of brand colours', () => {
  it('computes the WCAG ratio (black on white is 21:1, a colour on itself 1:1)', () => {
    expect(contrastRatio('#000000', '#ffffff')).toBeCloseTo(21, 5);
    expect(contrastRatio('#777777', '#777777')).toBeCloseTo(1, 5);
    expect(relativeLuminance('#ffffff')).toBeCloseTo(1, 5);
    // WebAIM's reference pair: #767676 on white is 4.54:1.
    expect(contrastRatio('#767676', '#ffffff')).toBeCloseTo(4.54, 2);
  });

  it('puts black or white text on a colour, whichever contrasts more', () => {
    expect(textColorOn('#ffeb3b')).toBe('#000000');
    expect(textColorOn('#1d4ed8')).toBe('#ffffff');
    for (const colour of ['#ff0000', '#00ff00', '#0000ff', '#808080', '#ff9900', '#7f7f7f']) {
      expect(contrastRatio(textColorOn(colour), colour)).toBeGreaterThanOrEqual(4.5);
    }
  });

  it('darkens a pale primary colour until it reaches 4.5:1 on white, and keeps one that already does', () => {
    expect(ensureContrast('#1d4ed8', '#ffffff')).toBe('#1d4ed8');
    for (const pale of ['#ffeb3b', '#87ceeb', '#ff9900', '#eeeeee']) {
      const adapted = ensureContrast(pale, '#ffffff');
      expect(adapted).not.toBe(pale);
      expect(contrastRatio(adapted, '#ffffff')).toBeGreaterThanOrEqual(4.5);
    }
  });

  it('lightens a colour used on a dark background', () => {
    const adapted = ensureContrast('#333366', '#111111');
    expect(contrastRatio(adapted, '#111111')).toBeGreaterThanOrEqual(4.5);
  });

  it('writes the brand stylesheet with adapted colours only', () => {
    const css = brandStylesheet({ colors: { primary: '#ffeb3b', pageBackground: '#000000' } });
    expect(css).toContain('button, a.button { background: #ffeb3b; color: #000000; }');
    expect(css).toMatch(/main a:not\(\.button\) \{ color: #[0-9a-f]{6}; \}/);
    expect(css).not.toMatch(/main a:not\(\.button\) \{ color: #ffeb3b/);
    expect(css).toContain('html { background: #000000; color: #ffffff; }');
  });

  it('loads only https URLs that cannot break out of the policy or the page', () => {
    expect(safeHttpsUrl('https://cdn.example.com/logo.png')).toBe('https://cdn.example.com/logo.png');
    expect(safeHttpsUrl('http://cdn.example.com/logo.png')).toBeUndefined();
    expect(safeHttpsUrl("https://cdn.example.com/a.png; script-src 'unsafe-inline'")).toBeUndefined();
    expect(safeHttpsUrl('https://cdn.example.com/a".png')).toBeUndefined();
    expect(safeHttpsUrl('javascript:alert(1)')).toBeUndefined();
  });
});
