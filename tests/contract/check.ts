// The TypeScript half of the contract test (the Rust half: tests/contract.rs, which writes the
// samples). Each sample already `satisfies` its declaration in samples.ts: no field the
// declaration lacks, none misnamed, none of the wrong type. This file adds what `satisfies`
// cannot see, so `tsc` fails on each:
// - a field the declaration has that the core never sends (samples marked full carry every
//   optional field at every depth, so the declaration may have no other);
// - an event or content block type the declaration has and the core has no sample of;
// - an enum value the declaration has and the core does not.
// Each check is an exported constant typed `never`: when something is wrong, tsc prints the
// offending samples and field paths as the type that is not assignable to `never`.
// Run: node scripts/contract.mjs (tests/node/contract.test.mjs shows that each check can fail).

import type * as Core from "smarthole-core";
import type { Enums, Samples } from "contract-samples";

/** Paths ("a.b[].c") of keys the declaration `T` has and the sample `S` lacks, at any depth. */
type Missing<S, T, Path extends string = ""> = unknown extends T
  ? never // unknown or any: the declaration says nothing about the inside
  : S extends readonly (infer E)[]
    ? NonNullable<T> extends readonly (infer U)[]
      ? Missing<E, U, `${Path}[]`>
      : never
    : S extends object
      ? MissingIn<S, Narrow<NonNullable<T>, S>, Path>
      : never;

/** A discriminated union narrowed to the member the sample's `type` names. */
type Narrow<T, S> = S extends { type: infer D }
  ? [Extract<T, { type: D }>] extends [never]
    ? T
    : Extract<T, { type: D }>
  : T;

type MissingIn<S, T, Path extends string> = string extends keyof T
  ? never // a record: any keys go
  :
      | Join<Path, Exclude<keyof T, keyof S> & string>
      | { [K in keyof S & keyof T & string]: Missing<S[K], T[K], Join<Path, K>> }[keyof S & keyof T & string];

type Join<Path extends string, K extends string> = Path extends "" ? K : `${Path}.${K}`;

/** Whether two types are the same (each assignable to the other). */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

/** The samples whose declaration is `T`. */
type SamplesOf<T> = {
  [K in keyof Samples]: Same<Samples[K][1], T> extends true ? Samples[K][0] : never;
}[keyof Samples];

/** `type` tags of the union `T` that no sample has. */
type Unsampled<T extends { type: string }> = Exclude<T["type"], SamplesOf<T> extends { type: infer D } ? D : never>;

type MissingBySample = {
  [K in keyof Samples as Samples[K][2] extends true ? K : never]: Missing<Samples[K][0], Samples[K][1]>;
};

/** The entries of `M` that are not `never`, or `never` when there are none. */
type Problems<M> = { [K in keyof M as [M[K]] extends [never] ? never : K]: M[K] } extends infer P
  ? [keyof P] extends [never]
    ? never
    : P
  : never;

/** What tsc reports when a check fails: the value stands for the problems, which must be none. */
const problems = <P>(): P => null as unknown as P;

/** Fields declared in TypeScript that the core never sends, by sample: should be none. */
export const declaredButNeverSent: never = problems<Problems<MissingBySample>>();

/** Event types declared that the core has no sample of (tests/contract.rs must add one). */
export const unsampledEvents: never = problems<Unsampled<Core.CoreEvent>>();

/** Content block types declared that the core has no sample of. */
export const unsampledContentBlocks: never = problems<Unsampled<Core.ContentBlock>>();

/** Enum values declared in TypeScript that the core does not have, by enum: should be none. */
export const declaredButNeverUsed: never = problems<
  Problems<{ [K in keyof Enums]: Exclude<Enums[K][1], Enums[K][0]> }>
>();
