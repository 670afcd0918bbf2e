// The Solana RPC checks: SOLANA_RPC_URL, whenever it is set, answers a JSON-RPC getHealth; and
// whether it serves the DAS API, without which collection rules see token-metadata NFTs only.
import type { Config } from '../../config';
import { type ClaimRule, needsRpc } from '../../eligibility/policy';
import { bad, type CheckLine, ok } from './check-line';
import { describeUrl, errorSummary, redact } from './describe';

/** Prevents: "every claim answers 503" when the policy reads the chain through a dead RPC endpoint. */
export async function checkSolanaRpc(config: Config, timeoutMs: number): Promise<CheckLine> {
  const needed = config.claimPolicy !== undefined && needsRpc(config.claimPolicy);
  if (!config.solanaRpcUrl) return ok('SOLANA_RPC_URL: not set (no CLAIM_POLICY rule reads the chain)');
  const server = describeUrl(config.solanaRpcUrl);
  const what = `SOLANA_RPC_URL (${server})`;
  const fix = 'check the endpoint and its API key, or choose another RPC provider';
  try {
    let answer = await jsonRpc(config.solanaRpcUrl, 'getHealth', timeoutMs);
    // Some providers do not offer getHealth (-32601, method not found): getVersion says as much.
    if (answer.error?.code === -32601) answer = await jsonRpc(config.solanaRpcUrl, 'getVersion', timeoutMs);
    if (answer.error) return bad(what, `answered getHealth with JSON-RPC error ${answer.error.code ?? '?'} (the node may be behind)`, fix);
    if (answer.result === undefined) return bad(what, 'answered getHealth with something that is not JSON-RPC', fix);
    return ok(`SOLANA_RPC_URL answers getHealth (${server})${needed ? '' : ', though no CLAIM_POLICY rule reads the chain'}`);
  } catch (error) {
    return bad(what, `does not answer getHealth (${redact(errorSummary(error), config.solanaRpcUrl)})`, fix);
  }
}

/** Both lines: getHealth, then (when the endpoint answers) whether it serves DAS. */
export async function checkSolana(config: Config, timeoutMs: number): Promise<CheckLine[]> {
  const health = await checkSolanaRpc(config, timeoutMs);
  if (!health.ok || !config.solanaRpcUrl) return [health];
  return [health, await checkSolanaDas(config, timeoutMs)];
}

/** A wallet that owns nothing (the system program's address): the DAS probe's owner, answered with an empty list. */
const PROBE_OWNER = '11111111111111111111111111111111';

/**
 * Prevents: "holders of a compressed collection are refused" when the provider does not serve DAS,
 * found only once people complain. A JSON-RPC getAssetsByOwner with one item a page: -32601 (method
 * not found) means no DAS.
 */
export async function checkSolanaDas(config: Config, timeoutMs: number): Promise<CheckLine> {
  const url = config.solanaRpcUrl as string;
  const server = describeUrl(url);
  const what = `SOLANA_RPC_URL (${server})`;
  const collections = config.claimPolicy !== undefined && mentions(config.claimPolicy, 'collection');
  let answer: JsonRpcAnswer;
  try {
    answer = await jsonRpc(url, 'getAssetsByOwner', timeoutMs, { ownerAddress: PROBE_OWNER, page: 1, limit: 1 });
  } catch (error) {
    return bad(
      what,
      `did not answer the DAS probe (getAssetsByOwner: ${redact(errorSummary(error), url)})`,
      'check the endpoint, then run the doctor again',
      true,
    );
  }
  if (answer.error?.code === -32601) {
    const without =
      'does not serve the DAS API (getAssetsByOwner: method not found): collection rules count token-metadata NFTs only, not compressed NFTs or Metaplex Core assets, and a rule with traits matches no one';
    if (!collections) return ok(`SOLANA_RPC_URL ${without} (${server})`);
    return bad(
      what,
      without,
      'choose a provider that serves DAS (Helius, Triton, QuickNode with its DAS add-on) if the collection has compressed NFTs or Core assets',
      true,
    );
  }
  const items = (answer.result as { items?: unknown } | null | undefined)?.items;
  if (answer.error || !Array.isArray(items)) {
    return bad(
      what,
      `answered the DAS probe (getAssetsByOwner) with ${answer.error ? `JSON-RPC error ${answer.error.code ?? '?'}` : 'something that is not a DAS answer'}`,
      'check the endpoint and its plan',
      true,
    );
  }
  return ok(`SOLANA_RPC_URL serves the DAS API (getAssetsByOwner): collection rules see compressed NFTs and Core assets too (${server})`);
}

function mentions(rule: ClaimRule, kind: ClaimRule['kind']): boolean {
  return rule.kind === kind || ((rule.kind === 'all' || rule.kind === 'any') && rule.rules.some((part) => mentions(part, kind)));
}

type JsonRpcAnswer = { result?: unknown; error?: { code?: number } };

async function jsonRpc(url: string, method: string, timeoutMs: number, params?: Record<string, unknown>): Promise<JsonRpcAnswer> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, ...(params ? { params } : {}) }),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await response.text();
  let answer: JsonRpcAnswer;
  try {
    answer = JSON.parse(text) as JsonRpcAnswer;
  } catch {
    throw new Error(`HTTP ${response.status}, not JSON`);
  }
  if (!response.ok && !answer.error) throw new Error(`HTTP ${response.status}`);
  return answer;
}
