// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the strings are CloudFormation Fn::Sub templates, not JavaScript ones
import { describe, expect, it } from 'vitest';
import { IntrinsicError, type ResolveScope, referencedIds, resolve } from '../../bin/rehearsal/intrinsics';

const ATTRIBUTES: Record<string, string> = {
  'Queue.Arn': 'arn:aws:sqs:eu-west-1:123456789012:queue',
  'Table.Arn': 'arn:table',
};

const scope = (over: Partial<ResolveScope> = {}): ResolveScope => ({
  pseudo: { 'AWS::Region': 'eu-west-1', 'AWS::AccountId': '123456789012', 'AWS::URLSuffix': 'amazonaws.com' },
  ref: (id) => (({ Queue: 'https://q/123/queue', Table: 'table-1' }) as Record<string, string>)[id],
  getAtt: (id, a) => ATTRIBUTES[`${id}.${a}`],
  stackOutput: (stack, name) => (stack === 'Data' && name === 'Bus' ? 'bus-1' : undefined),
  importValue: (name) => (name === 'shared-bus' ? 'bus-2' : undefined),
  condition: (name) => name === 'IsProd',
  ...over,
});

describe('template intrinsics, resolved against what the rehearsal created', () => {
  it('resolves Ref, GetAtt (both forms), Join, Sub, Select, Split and pseudo parameters', () => {
    expect(
      resolve(
        {
          url: { Ref: 'Queue' },
          arn: { 'Fn::GetAtt': ['Queue', 'Arn'] },
          dotted: { 'Fn::GetAtt': 'Table.Arn' },
          joined: { 'Fn::Join': ['', [{ Ref: 'AWS::Region' }, '/', { Ref: 'Table' }]] },
          sub: {
            'Fn::Sub': 'secretsmanager.${AWS::Region}.${AWS::URLSuffix} ${Table} ${Queue.Arn} ${!Literal}',
          },
          subVars: { 'Fn::Sub': ['${A}-${Table}', { A: { Ref: 'Queue' } }] },
          selected: { 'Fn::Select': [1, { 'Fn::Split': [':', 'a:b:c'] }] },
        },
        scope(),
      ),
    ).toEqual({
      url: 'https://q/123/queue',
      arn: 'arn:aws:sqs:eu-west-1:123456789012:queue',
      dotted: 'arn:table',
      joined: 'eu-west-1/table-1',
      sub: 'secretsmanager.eu-west-1.amazonaws.com table-1 arn:aws:sqs:eu-west-1:123456789012:queue ${Literal}',
      subVars: 'https://q/123/queue-table-1',
      selected: 'b',
    });
  });

  it('resolves weak cross-stack references, imports, conditions, and drops AWS::NoValue', () => {
    expect(
      resolve(
        {
          bus: { 'Fn::GetStackOutput': { StackName: 'Data', OutputName: 'Bus', Region: 'eu-west-1' } },
          imported: { 'Fn::ImportValue': 'shared-bus' },
          chosen: { 'Fn::If': ['IsProd', 'prod', 'dev'] },
          gone: { Ref: 'AWS::NoValue' },
          list: ['a', { Ref: 'AWS::NoValue' }, 'b'],
        },
        scope(),
      ),
    ).toEqual({ bus: 'bus-1', imported: 'bus-2', chosen: 'prod', list: ['a', 'b'] });
  });

  it('names where a reference to something not created, or an unknown intrinsic, was found', () => {
    expect(() => resolve({ Environment: { Variables: { T: { Ref: 'Missing' } } } }, scope(), 'Fn')).toThrow(
      new IntrinsicError(
        'Fn.Environment.Variables.T.Ref',
        'Missing is not created (or not known to the rehearsal)',
      ),
    );
    expect(() => resolve({ x: { 'Fn::Base64': 'a' } }, scope(), 'R')).toThrow(
      /R\.x\.Fn::Base64: Fn::Base64 is not an intrinsic the rehearsal resolves/,
    );
    expect(() =>
      resolve({ 'Fn::GetStackOutput': { StackName: 'Data', OutputName: 'Nope' } }, scope(), 'O'),
    ).toThrow(/output Nope of stack Data/);
  });

  it('lists the logical ids a value depends on, leaving pseudo parameters and Sub variables out', () => {
    expect(
      [
        ...referencedIds({
          a: { Ref: 'Queue' },
          b: { 'Fn::GetAtt': ['Table', 'Arn'] },
          c: { 'Fn::Sub': ['${Role.Arn} ${AWS::Region} ${Given}', { Given: { Ref: 'Key' } }] },
          d: { Ref: 'AWS::AccountId' },
        }),
      ].sort(),
    ).toEqual(['Key', 'Queue', 'Role', 'Table']);
  });
});
