import { readFileSync } from 'node:fs';
import {
  buildSchema,
  type GraphQLNamedType,
  type GraphQLSchema,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isNonNullType,
  isObjectType,
  isUnionType,
  parse,
  validate,
} from 'graphql';
import { describe, expect, it } from 'vitest';
import { projectsSchema } from '../../src/emulators/github/index.js';
import { DOCUMENTS } from './emulator-fixtures.js';

function loadGitHubSchema(): GraphQLSchema {
  // The published SDL repeats a few fields; graphql 17 rejects that unless told to trust the SDL.
  const file = new URL('../../node_modules/@octokit/graphql-schema/schema.graphql', import.meta.url);
  return buildSchema(readFileSync(file, 'utf8'), { assumeValid: true, assumeValidSDL: true });
}

/**
 * Every way `subset` departs from `real`: a type, field, argument, member or value GitHub lacks, a
 * type that differs, or a required argument or input field the subset leaves out (a document that
 * validates here would then be rejected by GitHub).
 */
function differences(subset: GraphQLSchema, real: GraphQLSchema): string[] {
  const problems: string[] = [];
  const userTypes = Object.values(subset.getTypeMap()).filter((t) => !t.name.startsWith('__'));
  for (const type of userTypes) {
    const twin: GraphQLNamedType | undefined = real.getType(type.name) ?? undefined;
    if (!twin) {
      problems.push(`type ${type.name} is not in GitHub's schema`);
      continue;
    }
    if (twin.constructor !== type.constructor) problems.push(`${type.name} is a different kind of type`);
    if ((isObjectType(type) || isInterfaceType(type)) && (isObjectType(twin) || isInterfaceType(twin))) {
      const realInterfaces = new Set(twin.getInterfaces().map((i) => i.name));
      for (const i of type.getInterfaces()) {
        if (!realInterfaces.has(i.name)) problems.push(`${type.name} does not implement ${i.name} on GitHub`);
      }
      const realFields = twin.getFields();
      for (const field of Object.values(type.getFields())) {
        const where = `${type.name}.${field.name}`;
        const real = realFields[field.name];
        if (!real) {
          problems.push(`${where} is not in GitHub's schema`);
          continue;
        }
        if (String(real.type) !== String(field.type))
          problems.push(`${where}: ${field.type} but GitHub has ${real.type}`);
        for (const arg of field.args) {
          const realArg = real.args.find((a) => a.name === arg.name);
          if (!realArg) problems.push(`${where}(${arg.name}) is not in GitHub's schema`);
          else if (String(realArg.type) !== String(arg.type)) {
            problems.push(`${where}(${arg.name}): ${arg.type} but GitHub has ${realArg.type}`);
          }
        }
        for (const realArg of real.args) {
          const required = isNonNullType(realArg.type) && realArg.defaultValue === undefined;
          if (required && !field.args.some((a) => a.name === realArg.name)) {
            problems.push(`${where} lacks GitHub's required argument ${realArg.name}`);
          }
        }
      }
    }
    if (isInputObjectType(type) && isInputObjectType(twin)) {
      const realFields = twin.getFields();
      for (const field of Object.values(type.getFields())) {
        const real = realFields[field.name];
        if (!real) problems.push(`${type.name}.${field.name} is not in GitHub's schema`);
        else if (String(real.type) !== String(field.type)) {
          problems.push(`${type.name}.${field.name}: ${field.type} but GitHub has ${real.type}`);
        }
      }
      for (const real of Object.values(realFields)) {
        if (isNonNullType(real.type) && real.defaultValue === undefined && !type.getFields()[real.name]) {
          problems.push(`${type.name} lacks GitHub's required field ${real.name}`);
        }
      }
    }
    if (isUnionType(type) && isUnionType(twin)) {
      const members = new Set(twin.getTypes().map((t) => t.name));
      for (const t of type.getTypes())
        if (!members.has(t.name)) problems.push(`${t.name} is not in GitHub's ${type.name}`);
    }
    if (isEnumType(type) && isEnumType(twin)) {
      const values = new Set(twin.getValues().map((v) => v.name));
      for (const v of type.getValues())
        if (!values.has(v.name)) problems.push(`${type.name}.${v.name} is not on GitHub`);
    }
  }
  return problems;
}

describe('the Projects v2 schema subset', () => {
  const real = loadGitHubSchema();
  const subset = projectsSchema();

  it('only has types, fields and arguments that GitHub has, with the same types', () => {
    expect(differences(subset, real)).toEqual([]);
  });

  it('notices a departure (the comparison itself can fail)', () => {
    const drifted = buildSchema(`
      type ProjectV2 { id: ID! number: String! title: String! invented: Int items(first: Int, bogus: Int): ProjectV2ItemConnection! }
      type ProjectV2ItemConnection { totalCount: Int! }
      type Query { repositoryOwner: ProjectV2 }
    `);
    expect(differences(drifted, real)).toEqual([
      'ProjectV2.number: String! but GitHub has Int!',
      "ProjectV2.invented is not in GitHub's schema",
      "ProjectV2.items(bogus) is not in GitHub's schema",
      'Query.repositoryOwner: ProjectV2 but GitHub has RepositoryOwner',
      "Query.repositoryOwner lacks GitHub's required argument login",
    ]);
  });

  it.each(Object.entries(DOCUMENTS))(
    '%s validates against the subset and against GitHub’s schema',
    (_name, text) => {
      const document = parse(text);
      expect(validate(subset, document).map((e) => e.message)).toEqual([]);
      expect(validate(real, document).map((e) => e.message)).toEqual([]);
    },
  );
});
