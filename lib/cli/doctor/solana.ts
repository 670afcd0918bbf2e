// The Solana RPC check: SOLANA_RPC_URL, whenever it is set, answers a JSON-RPC getHealth.
import type { Config } from '../../config';
import { needsRpc } from '../../eligibility/policy';
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

type JsonRpcAnswer = { result?: unknown; error?: { code?: number } };

async function jsonRpc(url: string, method: string, timeoutMs: number): Promise<JsonRpcAnswer> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method }),
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
