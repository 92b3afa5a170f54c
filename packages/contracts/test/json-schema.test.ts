import { contractJsonSchemas, contractSchemas, toJsonSchema, ConnectionCreateSchema } from '../src';

describe('JSON Schema', () => {
  it.each(Object.keys(contractSchemas))('converts %s', (name) => {
    const schema = contractJsonSchemas[name as keyof typeof contractJsonSchemas];
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(schema.type ?? schema.anyOf ?? schema.oneOf).toBeDefined();
  });

  it('shows defaulted fields as optional, since callers may leave them out', () => {
    const options = toJsonSchema(ConnectionCreateSchema).properties?.options as { required?: string[] };
    // name and strategy may come at the top level instead (the reference product's shape).
    expect(options.required).toEqual(['gateway_url', 'template']);
  });

  it("shows syntax as Auth0's enum and the template as a non-empty string whose description states the rules of each syntax", () => {
    const options = toJsonSchema(ConnectionCreateSchema).properties?.options as {
      properties: Record<string, Record<string, unknown>>;
    };
    expect(options.properties.syntax).toMatchObject({ type: 'string', enum: ['md_with_macros', 'liquid'] });
    expect(options.properties.template).toMatchObject({ type: 'string', minLength: 1 });
    expect(options.properties.template!.description).toMatch(/md_with_macros .*@@password@@.*liquid: must output the code/);
  });
});
