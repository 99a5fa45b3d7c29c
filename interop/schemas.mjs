// The foxglove.* JSON Schemas of @foxglove/schemas, by message name.
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const jsonschema = require('@foxglove/schemas/jsonschema')

// usedSchemas are the foxglove.* messages Shakedown's flight logs carry.
export const usedSchemas = ['foxglove.FrameTransform', 'foxglove.LocationFix', 'foxglove.Log', 'foxglove.PoseInFrame',
  'foxglove.PosesInFrame', 'foxglove.SceneUpdate']

// schemaOf returns the JSON Schema of a foxglove.* name, or undefined.
export function schemaOf (name) {
  if (!name.startsWith('foxglove.')) return undefined
  return jsonschema[name.slice('foxglove.'.length)]
}

export function foxgloveSchemas (names) {
  const out = {}
  for (const n of names) {
    const s = schemaOf(n)
    if (!s) throw new Error(`@foxglove/schemas has no ${n}`)
    out[n] = s
  }
  return out
}
