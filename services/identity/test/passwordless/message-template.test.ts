import { renderMessageTemplate } from '../../src/domain/passwordless/message-template';

const values = { password: '042917', phoneNumber: '+14155550123', applicationName: 'Acme Travel' };

describe('renderMessageTemplate', () => {
  it('replaces @@password@@ with the code', () => {
    expect(renderMessageTemplate('Your code is @@password@@', values)).toBe('Your code is 042917');
  });

  it('replaces @@phone_number@@ and @@application.name@@', () => {
    expect(renderMessageTemplate('@@application.name@@: code @@password@@ for @@phone_number@@', values)).toBe(
      'Acme Travel: code 042917 for +14155550123',
    );
  });

  it('replaces every occurrence of a macro', () => {
    expect(renderMessageTemplate('@@password@@ (again: @@password@@, @@password@@)', values)).toBe(
      '042917 (again: 042917, 042917)',
    );
  });

  it('leaves unknown macros and lone markers as written', () => {
    expect(renderMessageTemplate('@@user.name@@ @@Password@@ @@ @@password @@password@@', values)).toBe(
      '@@user.name@@ @@Password@@ @@ @@password 042917',
    );
  });

  it('keeps the text around macros, including markdown and newlines', () => {
    expect(renderMessageTemplate('**@@password@@**\nis your _code_.', values)).toBe('**042917**\nis your _code_.');
  });

  it('inserts values literally: replacement patterns in a value are not expanded', () => {
    const tricky = { ...values, applicationName: "$& $1 $` $' $$" };
    expect(renderMessageTemplate('@@application.name@@ @@password@@', tricky)).toBe("$& $1 $` $' $$ 042917");
  });

  it('never expands macros that appear inside a value', () => {
    const tricky = { ...values, applicationName: '@@password@@ @@phone_number@@' };
    expect(renderMessageTemplate('From @@application.name@@', tricky)).toBe('From @@password@@ @@phone_number@@');
  });

  it('treats regex metacharacters in values and templates as text', () => {
    const tricky = { ...values, applicationName: '.*+?^${}()|[]\\' };
    expect(renderMessageTemplate('[@@application.name@@] (.*) @@password@@', tricky)).toBe(
      '[.*+?^${}()|[]\\] (.*) 042917',
    );
  });

  it('does not resolve macro names through the object prototype', () => {
    expect(renderMessageTemplate('@@constructor@@ @@toString@@ @@__proto__@@', values)).toBe(
      '@@constructor@@ @@toString@@ @@__proto__@@',
    );
  });
});
