// Writes the JSON Schemas of the foxglove.* messages flightlog writes, as
// @foxglove/schemas (pinned in package.json) publishes them, to
// ../flightlog/foxglove_schemas.json, which flightlog embeds. Run it after
// bumping @foxglove/schemas: node gen-schemas.mjs. TestSchemasUpToDate
// (interop_test.go) fails when the file and the package differ.
import { writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { foxgloveSchemas, usedSchemas } from './schemas.mjs'

const out = fileURLToPath(new URL('../flightlog/foxglove_schemas.json', import.meta.url))
writeFileSync(out, JSON.stringify(foxgloveSchemas(usedSchemas), null, 1) + '\n')
console.log(`wrote ${usedSchemas.length} schemas to ${out}`)
