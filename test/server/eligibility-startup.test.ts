// A CLAIM_POLICY that cannot work stops `npm start` at once with one line naming the variable:
// a rule that does not parse, and chain rules without SOLANA_RPC_URL.
import { describe, expect, it } from 'vitest';
import { startServerExpectingRefusal } from '../support/server';

const MINT = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';

describe('start-up refuses a CLAIM_POLICY that cannot work', () => {
  it('a rule that does not parse: exit 1, one line naming CLAIM_POLICY (and never its addresses)', async () => {
    const { code, stderr } = await startServerExpectingRefusal({ CLAIM_POLICY: JSON.stringify({ any: [{ token: { mint: MINT, minAmount: 5 } }] }) });
    expect(code).toBe(1);
    expect(stderr).toBe(
      'wallet-pass-claim: CLAIM_POLICY: any[0].token.minAmount must be a decimal string of base units, e.g. "1000000" (a JSON number loses precision)\n',
    );
  });

  it('a token rule without SOLANA_RPC_URL: exit 1, one line naming SOLANA_RPC_URL', async () => {
    const { code, stderr } = await startServerExpectingRefusal({ CLAIM_POLICY: JSON.stringify({ token: { mint: MINT, minAmount: '1' } }) });
    expect(code).toBe(1);
    expect(stderr).toBe('wallet-pass-claim: SOLANA_RPC_URL: is required: CLAIM_POLICY has token, collection or group rules, which read the chain\n');
  });
});
