// Reads MCAP files with Foxglove's own TypeScript reader (@mcap/core's
// indexed reader, @mcap/nodejs, @mcap/support's decompressors) and
// validates every message of every foxglove.* channel with ajv against the
// JSON Schema that @foxglove/schemas publishes for the channel's schema
// name, strictly (a field the schema does not define is an error, as in a
// consumer that rejects unknown fields). Prints one line per channel and a
// total; exits 1 when a message is invalid or a channel has no message.
//
// Usage: node validate-mcap.mjs file.mcap...
import { open } from 'node:fs/promises'
import { McapIndexedReader } from '@mcap/core'
import { FileHandleReadable } from '@mcap/nodejs'
import { loadDecompressHandlers } from '@mcap/support'
import Ajv from 'ajv'
import { schemaOf } from './schemas.mjs'

// strict returns a copy of schema in which every object admits only the
// properties it defines.
function strict (schema) {
  if (Array.isArray(schema)) return schema.map(strict)
  if (schema === null || typeof schema !== 'object') return schema
  const out = {}
  for (const [k, v] of Object.entries(schema)) out[k] = k === 'properties' ? Object.fromEntries(Object.entries(v).map(([p, s]) => [p, strict(s)])) : strict(v)
  if (schema.type === 'object' && schema.properties) out.additionalProperties = false
  return out
}

const ajv = new Ajv({ strict: false, allErrors: true })
const decompressHandlers = await loadDecompressHandlers()
let total = 0; let bad = 0
for (const path of process.argv.slice(2)) {
  const fh = await open(path, 'r')
  const reader = await McapIndexedReader.Initialize({ readable: new FileHandleReadable(fh), decompressHandlers })
  const validators = new Map(); const counts = new Map()
  for (const [id, ch] of reader.channelsById) {
    const sc = reader.schemasById.get(ch.schemaId)
    const fx = sc && schemaOf(sc.name)
    if (sc && sc.name.startsWith('foxglove.')) {
      if (!fx) { console.log(`${path} ${ch.topic}: FAIL @foxglove/schemas has no ${sc.name}`); bad++; continue }
      validators.set(id, { v: ajv.compile(strict(fx)), topic: ch.topic, name: sc.name })
    }
    counts.set(id, 0)
  }
  for await (const m of reader.readMessages()) {
    counts.set(m.channelId, counts.get(m.channelId) + 1)
    const val = validators.get(m.channelId)
    if (!val) continue
    total++
    const data = JSON.parse(new TextDecoder().decode(m.data))
    if (!val.v(data)) {
      bad++
      if (bad <= 10) console.log(`${path} ${val.topic} (${val.name}) message at ${m.logTime}: FAIL ${ajv.errorsText(val.v.errors)}`)
    }
  }
  for (const [id, ch] of reader.channelsById) {
    const sc = reader.schemasById.get(ch.schemaId)
    const n = counts.get(id)
    if (n === 0) { console.log(`${path} ${ch.topic}: FAIL a channel with no message`); bad++ }
    console.log(`channel ${ch.topic} ${sc?.name ?? '(no schema)'}: ${n} messages${validators.has(id) ? ' validated' : ''}`)
  }
  await fh.close()
}
console.log(`foxglove messages validated: ${total}, invalid: ${bad}`)
process.exit(bad > 0 || total === 0 ? 1 : 0)
