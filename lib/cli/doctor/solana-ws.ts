// The Solana PubSub check: SOLANA_WS_URL, when set, accepts a WebSocket and a programSubscribe.
import { type Address, type Base58EncodedBytes, createSolanaRpcSubscriptions } from '@solana/kit';
import type { Config } from '../../config';
import { TOKEN_PROGRAM } from '../../eligibility/accounts';
import { bad, type CheckLine, ok } from './check-line';
import { describeUrl, errorSummary, redact } from './describe';

/** A mint no account holds (32 zero bytes, the System Program's address): the subscription stays silent. */
const NO_MINT = '11111111111111111111111111111111' as Address;

/** Prevents: "transfers are only seen at the next round" when the PubSub endpoint is dead or refuses programSubscribe. */
export async function checkSolanaWs(config: Config, timeoutMs: number): Promise<CheckLine[]> {
  if (!config.solanaWsUrl) return [];
  const server = describeUrl(config.solanaWsUrl);
  const what = `SOLANA_WS_URL (${server})`;
  const fix = 'check the WebSocket endpoint and its API key (providers publish it beside the RPC URL), or unset it: rounds still re-check';
  const stop = new AbortController();
  const timer = setTimeout(() => stop.abort(new Error('no answer in time')), timeoutMs);
  try {
    // The subscription the service makes, on a mint nobody holds: acknowledged means served.
    await createSolanaRpcSubscriptions(config.solanaWsUrl)
      .programNotifications(TOKEN_PROGRAM, {
        encoding: 'base64',
        filters: [{ dataSize: 165n }, { memcmp: { offset: 0n, bytes: NO_MINT as string as Base58EncodedBytes, encoding: 'base58' } }],
      })
      .subscribe({ abortSignal: stop.signal });
    return [ok(`SOLANA_WS_URL accepts programSubscribe (${server})`)];
  } catch (error) {
    const reason = stop.signal.aborted ? 'no answer in time' : redact(errorSummary(error), config.solanaWsUrl);
    return [bad(what, `does not accept programSubscribe (${reason})`, fix)];
  } finally {
    clearTimeout(timer);
    stop.abort();
  }
}
