// npm run keygen -- [--out <file>]: a new Solana keypair file (a JSON array of 64 numbers, as
// solana-keygen writes it) for trying the command-line claim without the Solana CLI.
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { newSolanaKeypairFile } from '../lib/solana-keypair';

const USAGE = 'Usage: npm run keygen -- [--out <file>]   (default: keypair.json; never overwrites a file)';

function main(): number {
  let out: string;
  try {
    const { values } = parseArgs({ options: { out: { type: 'string', short: 'o' }, help: { type: 'boolean', short: 'h' } } });
    if (values.help) {
      console.log(USAGE);
      return 0;
    }
    out = values.out ?? 'keypair.json';
  } catch (error) {
    console.error(`keygen: usage: ${(error as Error).message} (${USAGE})`);
    return 2;
  }
  const { address, text } = newSolanaKeypairFile();
  try {
    // wx: never replace a key someone may rely on; 0600: the file is a secret key.
    writeFileSync(out, text, { flag: 'wx', mode: 0o600 });
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    console.error(`keygen: cannot write ${out}: ${code === 'EEXIST' ? 'it already exists' : message}`);
    return 3;
  }
  console.error(`Wrote a new keypair to ${out}. Its address:`);
  console.log(address);
  return 0;
}

process.exitCode = main();
