import { describe, expect, it } from 'vitest';
import type { ClaimRule } from '../eligibility/policy';
import { policyInWords } from './policy-words';

const MINT = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const COLLECTION = 'J1S9H3QjnRtBbbuD4HjPV6RpRhwuk4zKbxsnCHuTgh9w';
const allow: ClaimRule = { kind: 'allow', addresses: new Set(['7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU']), source: 'inline' };
const token = (minAmount: bigint): ClaimRule => ({ kind: 'token', mint: MINT, minAmount });
const collection: ClaimRule = { kind: 'collection', collection: COLLECTION };

describe('policyInWords: who may claim, as the claim page says it', () => {
  it('names each kind of rule plainly, with short addresses, and never an allowlist’s', () => {
    expect(policyInWords(undefined)).toBe('Anyone with a Solana wallet');
    expect(policyInWords(allow)).toBe('Invited wallets');
    expect(policyInWords(token(1n))).toBe('Holders of the token EPjF…Dt1v');
    expect(policyInWords(token(1_000_000n))).toBe('Holders of at least 1000000 base units of the token EPjF…Dt1v');
    expect(policyInWords(collection)).toBe('Holders of an NFT of the collection J1S9…gh9w');
  });

  it('joins all and any rules into one sentence', () => {
    expect(policyInWords({ kind: 'all', rules: [allow, token(1n)] })).toBe('Wallets that both are invited and hold the token EPjF…Dt1v');
    expect(policyInWords({ kind: 'any', rules: [allow, collection, token(1n)] })).toBe(
      'Wallets that are invited, hold an NFT of the collection J1S9…gh9w or hold the token EPjF…Dt1v',
    );
    expect(JSON.stringify(policyInWords({ kind: 'any', rules: [allow] }))).not.toContain('7xKX');
  });

  it('says a collection rule’s traits and a Token-2022 group in words', () => {
    expect(policyInWords({ kind: 'collection', collection: COLLECTION, traits: { Background: 'Blue' } })).toBe(
      'Holders of an NFT of the collection J1S9…gh9w with Background: Blue',
    );
    expect(policyInWords({ kind: 'collection', collection: COLLECTION, traits: { Background: 'Blue', Eyes: 'Laser', Hat: 'None' } })).toBe(
      'Holders of an NFT of the collection J1S9…gh9w with Background: Blue, Eyes: Laser and Hat: None',
    );
    expect(policyInWords({ kind: 'group', group: MINT })).toBe('Holders of a token of the group EPjF…Dt1v');
    expect(policyInWords({ kind: 'any', rules: [{ kind: 'group', group: MINT }, collection] })).toBe(
      'Wallets that either hold a token of the group EPjF…Dt1v or hold an NFT of the collection J1S9…gh9w',
    );
  });
});
