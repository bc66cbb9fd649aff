import { Argument, type Command } from 'commander';
import { SWEEP_SCHEMA_FILE, sweepJsonSchemaText } from '../../core/sweep/sweep-json-schema.js';

export function registerSchema(program: Command): void {
  program
    .command('schema')
    .description(`print the JSON Schema of a file format, for editors (the shipped copy: ${SWEEP_SCHEMA_FILE})`)
    .addArgument(new Argument('<format>', 'the format').choices(['sweep']))
    .action(() => void process.stdout.write(sweepJsonSchemaText()));
}
