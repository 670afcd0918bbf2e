// npm run doctor [-- --production]
// Checks the configuration in the environment before it goes live; one line per check, exit 1 on
// a failed check. lib/cli/doctor/ has the checks, one file each; --help lists the options.
import { runDoctorCommand } from '../lib/cli/doctor';

const lines: string[] = [];
runDoctorCommand(process.argv.slice(2), {
  stdout: (line) => lines.push(line),
  stderr: (line) => process.stderr.write(`${line}\n`),
}).then(
  (exitCode) => {
    // Exit once the output is written: a driver's idle timer must not keep the process alive,
    // and process.exit before a piped stdout is flushed would cut the report short.
    process.stdout.write(lines.length ? `${lines.join('\n')}\n` : '', () => process.exit(exitCode));
  },
  (error: unknown) => {
    process.stderr.write(`doctor: unexpected failure: ${(error as Error).message}\n`, () => process.exit(1));
  },
);
