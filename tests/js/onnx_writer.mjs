// Small ONNX models for tests, written field by field (onnx.proto's field numbers), and seeded
// normal values for their weights and samples.
export const varint = (v) => {
  const out = [];
  while (v >= 128) out.push((v % 128) | 128), (v = Math.floor(v / 128));
  return [...out, v];
};
export const field = (n, body) => [...varint(n * 8 + 2), ...varint(body.length), ...body];
export const number = (n, v) => [...varint(n * 8), ...varint(v)];
export const str = (n, s) => field(n, [...new TextEncoder().encode(s)]);
export const FLOAT = 1;
export const tensor = (name, dims, values) => [...dims.flatMap((d) => number(1, d)), ...number(2, FLOAT), ...str(8, name),
                                        ...field(9, [...new Uint8Array(Float32Array.from(values).buffer)])];
export const valueInfo = (name, dims) => [...str(1, name), ...field(2, field(1, [...number(1, FLOAT), ...field(2, dims.flatMap((d) => field(1, number(1, d))))]))];
export const intAttribute = (name, v) => [...str(1, name), ...number(3, v), ...number(20, 2)];
export const intsAttribute = (name, vs) => [...str(1, name), ...vs.flatMap((v) => number(8, v)), ...number(20, 7)];
export const node = (op, inputs, outputs, attributes = []) => [...inputs.flatMap((i) => str(1, i)), ...outputs.flatMap((o) => str(2, o)), ...str(3, outputs[0]),
                                                        ...str(4, op), ...attributes.flatMap((a) => field(5, a))];

// Seeded normal values (xorshift32 and Box-Muller).
export function normals(count, seed, scale = 1) {
  let s = seed >>> 0 || 1;
  const uniform = () => ((s ^= s << 13), (s ^= s >>> 17), (s ^= s << 5), ((s >>> 0) + 0.5) / 2 ** 32);
  return Array.from({ length: count }, () => scale * Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform()));
}

// A model of one MatMul, x [1, 64] times w [64, 512], whose weight is in the external data file
// `location` (written by the caller: 64 * 512 float32 values).
export const externalMatMul = (location) => Uint8Array.from([...number(1, 8), ...field(8, number(2, 13)), ...field(7, [
  ...field(1, node('MatMul', ['x', 'w'], ['y'])), ...str(2, 'external'),
  ...field(5, [...number(1, 64), ...number(1, 512), ...number(2, FLOAT), ...str(8, 'w'), ...field(13, [...str(1, 'location'), ...str(2, location)]),
               ...number(14, 1)]),
  ...field(11, valueInfo('x', [1, 64])), ...field(12, valueInfo('y', [1, 512]))])]);
