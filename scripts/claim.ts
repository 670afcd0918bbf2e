// npm run claim -- --keypair ~/.config/solana/id.json [--url …] [--wallet-type …] [--out …]
// Claims a wallet pass from the command line; --help lists the options and exit codes.
import { runClaim } from '../lib/cli/claim';

runClaim(process.argv.slice(2), {
  stdout: (line) => process.stdout.write(`${line}\n`),
  stderr: (line) => process.stderr.write(`${line}\n`),
}).then((exitCode) => {
  process.exitCode = exitCode;
});
