// `node --import ./test/helpers/record-modules.mjs`: appends the URL of every module the process
// resolves to the file named by RECORD_MODULES_FILE (a test's view of what a command loads).
import { register } from 'node:module';

register('./record-modules-hooks.mjs', import.meta.url, { data: { file: process.env.RECORD_MODULES_FILE } });
