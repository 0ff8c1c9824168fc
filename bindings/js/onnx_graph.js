// The main graph of an ONNX file, read from its bytes in JS (the protobuf wire format, no library):
// its nodes (inputs, outputs, op type, integer, float and tensor attributes), its inputs and outputs
// by name, and its initializers (name, type, dims and where their data lies; a Constant node's
// tensor counts as an initializer of its output's name). Tensor data is not copied, and
// subgraphs (If, Loop) are not read. withOutputs() writes a copy whose graph has more outputs, for
// reading values the graph computes inside (activation_probe.js).

const WIRE = { varint: 0, fixed64: 1, bytes: 2, fixed32: 5 };
// Field numbers (onnx.proto).
const MODEL_GRAPH = 7;
const GRAPH = { node: 1, initializer: 5, input: 11, output: 12 };
const NODE = { input: 1, output: 2, name: 3, opType: 4, attribute: 5 };
const ATTRIBUTE = { name: 1, f: 2, i: 3, t: 5 };
const TENSOR = { dims: 1, dataType: 2, floatData: 4, int32Data: 5, name: 8, rawData: 9, dataLocation: 14 };
const VALUE_INFO = { name: 1, type: 2 };
const TYPE_TENSOR = 1, TENSOR_TYPE_ELEM = 1;

// TensorProto.DataType codes of the float types.
export const DATA_TYPE = { float: 1, float16: 10, double: 11, bfloat16: 16 };

const decoder = new TextDecoder();

// Reads the fields of one message in bytes[start, end): onField(number, wire, value, at) with
// value a number (varint, fixed32 as its bits, fixed64 as [low, high]) or, for length-delimited
// fields, [from, to): the field's bytes. `at` is where the field's tag starts.
function fields(bytes, start, end, onField) {
  let p = start;
  const varint = () => {
    let value = 0, scale = 1, b;
    do {
      if (p >= end) throw new Error(`the model's protobuf ends inside a number at byte ${p}`);
      b = bytes[p++];
      value += (b & 0x7f) * scale;
      scale *= 128;
    } while (b & 0x80);
    return value;
  };
  while (p < end) {
    const at = p;
    const tag = varint();
    const number = Math.floor(tag / 8), wire = tag % 8;
    if (wire === WIRE.varint) onField(number, wire, varint(), at);
    else if (wire === WIRE.bytes) {
      const length = varint();
      if (p + length > end) throw new Error(`field ${number} at byte ${at} runs past its message (${length} bytes)`);
      onField(number, wire, [p, p + length], at);
      p += length;
    } else if (wire === WIRE.fixed32) {
      onField(number, wire, bytes[p] | (bytes[p + 1] << 8) | (bytes[p + 2] << 16) | (bytes[p + 3] << 24), at);
      p += 4;
    } else if (wire === WIRE.fixed64) {
      p += 8;
    } else {
      throw new Error(`the model's protobuf has wire type ${wire} at byte ${at}: not an ONNX file`);
    }
  }
}

const text = (bytes, [from, to]) => decoder.decode(bytes.subarray(from, to));

// Varints packed in bytes[from, to).
function packedVarints(bytes, [from, to]) {
  const out = [];
  let value = 0, scale = 1;
  for (let p = from; p < to; p++) {
    value += (bytes[p] & 0x7f) * scale;
    scale *= 128;
    if (!(bytes[p] & 0x80)) out.push(value), (value = 0), (scale = 1);
  }
  return out;
}

const float32Bits = new DataView(new ArrayBuffer(4));

function readNode(bytes, range) {
  const node = { inputs: [], outputs: [], name: '', opType: '', attributes: {}, range };
  fields(bytes, range[0], range[1], (n, wire, v) => {
    if (n === NODE.input && wire === WIRE.bytes) node.inputs.push(text(bytes, v));
    else if (n === NODE.output && wire === WIRE.bytes) node.outputs.push(text(bytes, v));
    else if (n === NODE.name && wire === WIRE.bytes) node.name = text(bytes, v);
    else if (n === NODE.opType && wire === WIRE.bytes) node.opType = text(bytes, v);
    else if (n === NODE.attribute && wire === WIRE.bytes) {
      let name = '', value;
      fields(bytes, v[0], v[1], (an, aw, av) => {
        if (an === ATTRIBUTE.name && aw === WIRE.bytes) name = text(bytes, av);
        else if (an === ATTRIBUTE.i && aw === WIRE.varint) value = av;
        else if (an === ATTRIBUTE.f && aw === WIRE.fixed32) float32Bits.setInt32(0, av, true), (value = float32Bits.getFloat32(0, true));
        else if (an === ATTRIBUTE.t && aw === WIRE.bytes) value = readInitializer(bytes, av);
      });
      if (name && value !== undefined) node.attributes[name] = value;
    }
  });
  return node;
}

function readInitializer(bytes, range) {
  const t = { name: '', dataType: 0, dims: [], data: null, external: false };
  fields(bytes, range[0], range[1], (n, wire, v) => {
    if (n === TENSOR.name && wire === WIRE.bytes) t.name = text(bytes, v);
    else if (n === TENSOR.dataType && wire === WIRE.varint) t.dataType = v;
    else if (n === TENSOR.dims) wire === WIRE.bytes ? t.dims.push(...packedVarints(bytes, v)) : t.dims.push(v);
    else if (n === TENSOR.rawData && wire === WIRE.bytes) t.data = { raw: v };
    else if (n === TENSOR.floatData && wire === WIRE.bytes) t.data = { floats: v };
    else if (n === TENSOR.int32Data && wire === WIRE.bytes) t.data = { int32: v };
    else if (n === TENSOR.dataLocation && wire === WIRE.varint) t.external = v === 1;
  });
  return t;
}

const valueName = (bytes, range) => {
  let name = '';
  fields(bytes, range[0], range[1], (n, wire, v) => { if (n === VALUE_INFO.name && wire === WIRE.bytes) name = text(bytes, v); });
  return name;
};

/**
 * The main graph of a model's bytes: { nodes, inputs, outputs, initializers (Map name -> tensor),
 * range } with `range` the graph message's bytes [from, to) and where its field starts (`at`).
 */
export function readGraph(model) {
  let graph = null;
  fields(model, 0, model.byteLength, (n, wire, v, at) => {
    if (n === MODEL_GRAPH && wire === WIRE.bytes && !graph) graph = { at, range: v };
  });
  if (!graph) throw new Error('the model has no graph');
  const out = { nodes: [], inputs: [], outputs: [], initializers: new Map(), range: graph.range, at: graph.at };
  fields(model, graph.range[0], graph.range[1], (n, wire, v, at) => {
    if (wire !== WIRE.bytes) return;
    if (n === GRAPH.node) out.nodes.push({ ...readNode(model, v), at });
    else if (n === GRAPH.input) out.inputs.push(valueName(model, v));
    else if (n === GRAPH.output) out.outputs.push(valueName(model, v));
    else if (n === GRAPH.initializer) {
      const t = readInitializer(model, v);
      out.initializers.set(t.name, t);
    }
  });
  for (const node of out.nodes) {
    const t = node.attributes.value;
    if (node.opType === 'Constant' && typeof t === 'object' && node.outputs.length === 1) out.initializers.set(node.outputs[0], { ...t, name: node.outputs[0] });
  }
  return out;
}

/**
 * An initializer's values as float64 (null for data in another file, or a type other than
 * float, float16, double and bfloat16).
 */
export function initializerValues(model, t) {
  if (t.external || !t.data) return null;
  const count = t.dims.reduce((a, b) => a * b, 1);
  const [from, to] = t.data.raw ?? t.data.floats ?? t.data.int32;
  const view = new DataView(model.buffer, model.byteOffset + from, to - from);
  const out = new Float64Array(count);
  if (t.data.int32) {  // float16 and bfloat16 kept as int32_data: one varint each
    const words = packedVarints(model, t.data.int32);
    if (words.length !== count) return null;
    for (let i = 0; i < count; i++) out[i] = t.dataType === DATA_TYPE.bfloat16 ? bfloat16(words[i]) : float16(words[i]);
    return out;
  }
  const size = { [DATA_TYPE.float]: 4, [DATA_TYPE.double]: 8, [DATA_TYPE.float16]: 2, [DATA_TYPE.bfloat16]: 2 }[t.dataType];
  if (!size || view.byteLength !== count * size || (t.data.floats && t.dataType !== DATA_TYPE.float)) return null;
  for (let i = 0; i < count; i++) {
    if (t.dataType === DATA_TYPE.float) out[i] = view.getFloat32(4 * i, true);
    else if (t.dataType === DATA_TYPE.double) out[i] = view.getFloat64(8 * i, true);
    else if (t.dataType === DATA_TYPE.float16) out[i] = float16(view.getUint16(2 * i, true));
    else out[i] = bfloat16(view.getUint16(2 * i, true));
  }
  return out;
}

/** A float16's value from its 16 bits. */
export function float16(h) {
  const exponent = (h >> 10) & 0x1f, fraction = h & 0x3ff, sign = h & 0x8000 ? -1 : 1;
  if (exponent === 0) return sign * fraction * 2 ** -24;
  if (exponent === 31) return fraction ? NaN : sign * Infinity;
  return sign * (1 + fraction / 1024) * 2 ** (exponent - 15);
}

function bfloat16(h) {
  float32Bits.setUint32(0, h << 16, true);
  return float32Bits.getFloat32(0, true);
}

function varintBytes(value) {
  const out = [];
  while (value >= 128) out.push((value % 128) | 0x80), (value = Math.floor(value / 128));
  out.push(value);
  return out;
}

const lengthDelimited = (number, body) => [...varintBytes(number * 8 + WIRE.bytes), ...varintBytes(body.length), ...body];

// A ValueInfoProto: the name and, when given, the tensor's element type (TensorProto.DataType).
function valueInfo(name, elemType) {
  const body = [...lengthDelimited(VALUE_INFO.name, new TextEncoder().encode(name))];
  if (elemType) body.push(...lengthDelimited(VALUE_INFO.type, lengthDelimited(TYPE_TENSOR, [...varintBytes(TENSOR_TYPE_ELEM * 8 + WIRE.varint), ...varintBytes(elemType)])));
  return body;
}

/**
 * A copy of `model` whose main graph has these outputs too: [{ name, elemType }] (elemType: the
 * TensorProto.DataType of the values; shapes are left open). `graph`: readGraph(model).
 */
export function withOutputs(model, graph, outputs) {
  const extra = Uint8Array.from(outputs.flatMap(({ name, elemType }) => lengthDelimited(GRAPH.output, valueInfo(name, elemType))));
  const [from, to] = graph.range;
  const head = Uint8Array.from([...varintBytes(MODEL_GRAPH * 8 + WIRE.bytes), ...varintBytes(to - from + extra.length)]);
  const out = new Uint8Array(graph.at + head.length + (to - from) + extra.length + (model.byteLength - to));
  let p = 0;
  for (const part of [model.subarray(0, graph.at), head, model.subarray(from, to), extra, model.subarray(to)]) out.set(part, p), (p += part.length);
  return out;
}

/**
 * A copy of `model` with its main graph edited (`graph`: readGraph(model)):
 *  - `values`: [{ tensor, values }]: a float32 initializer's values (raw or packed float_data)
 *    overwritten, the same count;
 *  - `inputs`: [{ node, name }]: an input appended to a node (a Conv's missing bias);
 *  - `initializers`: [{ name, dims, values }]: float32 initializers added.
 */
export function withEdits(model, graph, { values = [], inputs = [], initializers = [] }) {
  const copy = new Uint8Array(model);  // a copy (a Buffer's slice() would be a view)
  for (const { tensor, values: v } of values) {
    const [from, to] = tensor.data?.raw ?? tensor.data?.floats ?? [];
    if (tensor.dataType !== DATA_TYPE.float || tensor.external || to - from !== 4 * v.length) throw new Error(`'${tensor.name}' is not float32 data of ${v.length} values in this file`);
    const view = new DataView(copy.buffer, copy.byteOffset + from, to - from);
    v.forEach((x, i) => view.setFloat32(4 * i, x, true));
  }
  if (!inputs.length && !initializers.length) return copy;  // same layout: the copy is the model
  const encoder = new TextEncoder();
  const added = new Map();
  for (const { node, name } of inputs) added.set(node.range[0], [...(added.get(node.range[0]) ?? []), ...lengthDelimited(NODE.input, encoder.encode(name))]);
  const parts = [];
  let p = graph.range[0];
  for (const node of graph.nodes) {
    const extra = added.get(node.range[0]);
    if (!extra) continue;
    // The node's field (tag and length, from node.at) is written anew around the longer body.
    parts.push(copy.subarray(p, node.at), Uint8Array.from(lengthDelimited(GRAPH.node, [...copy.subarray(...node.range), ...extra])));
    p = node.range[1];
  }
  parts.push(copy.subarray(p, graph.range[1]));
  for (const t of initializers) {
    const raw = new Uint8Array(Float32Array.from(t.values).buffer);
    const body = [...t.dims.flatMap((d) => [...varintBytes(TENSOR.dims * 8 + WIRE.varint), ...varintBytes(d)]),
                  ...varintBytes(TENSOR.dataType * 8 + WIRE.varint), ...varintBytes(DATA_TYPE.float),
                  ...lengthDelimited(TENSOR.name, encoder.encode(t.name)), ...lengthDelimited(TENSOR.rawData, raw)];
    parts.push(Uint8Array.from(lengthDelimited(GRAPH.initializer, body)));
  }
  const length = parts.reduce((s, x) => s + x.length, 0);
  const head = Uint8Array.from([...varintBytes(MODEL_GRAPH * 8 + WIRE.bytes), ...varintBytes(length)]);
  const out = new Uint8Array(graph.at + head.length + length + (copy.byteLength - graph.range[1]));
  let q = 0;
  for (const part of [copy.subarray(0, graph.at), head, ...parts, copy.subarray(graph.range[1])]) out.set(part, q), (q += part.length);
  return out;
}
