#!/usr/bin/env node
// Validate glTF 2.0 files (.glb or .gltf) with the Khronos glTF validator.
//
// Usage: node validate.mjs [--strict] [--infos] FILE...
//   --strict  also fail on warnings
//   --infos   also list each info/hint message (otherwise only counted)
//
// For each file prints one summary line `FILE: N errors, N warnings, N infos, N hints`
// followed by one line per error/warning: `  SEVERITY CODE POINTER: message`.
// External resources (buffers, images referenced by uri) are loaded relative to the file.
// Exit status: 0 when no file has errors (or warnings with --strict), 1 otherwise,
// 2 on bad usage or a file that cannot be read or recognised.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import * as validator from 'gltf-validator';

const SEVERITY = ['error', 'warning', 'info', 'hint'];

const args = process.argv.slice(2);
const strict = args.includes('--strict');
const infos = args.includes('--infos');
const files = args.filter((a) => !a.startsWith('--'));
if (files.length === 0) {
  console.error('usage: node validate.mjs [--strict] [--infos] FILE.glb|FILE.gltf...');
  process.exit(2);
}

let failed = false;
let broken = false;
for (const file of files) {
  let bytes;
  try {
    bytes = new Uint8Array(await readFile(file));
  } catch (e) {
    console.error(`${file}: cannot read: ${e.message}`);
    broken = true;
    continue;
  }
  let report;
  try {
    report = await validator.validateBytes(bytes, {
      uri: path.basename(file),
      maxIssues: 0,
      writeTimestamp: false,
      externalResourceFunction: (uri) =>
        readFile(path.resolve(path.dirname(file), decodeURIComponent(uri))).then(
          (data) => new Uint8Array(data),
          (err) => Promise.reject(err.toString()),
        ),
    });
  } catch (e) {
    console.error(`${file}: validator could not run: ${e}`);
    broken = true;
    continue;
  }
  const is = report.issues;
  console.log(
    `${file}: ${is.numErrors} errors, ${is.numWarnings} warnings, ${is.numInfos} infos, ${is.numHints} hints`,
  );
  for (const m of is.messages) {
    if (m.severity <= 1 || infos) {
      const where = m.pointer ?? (m.offset !== undefined ? `@${m.offset}` : '');
      console.log(`  ${SEVERITY[m.severity] ?? m.severity} ${m.code} ${where}: ${m.message}`);
    }
  }
  if (is.numErrors > 0 || (strict && is.numWarnings > 0)) failed = true;
}
process.exit(broken ? 2 : failed ? 1 : 0);
