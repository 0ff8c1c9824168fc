"""What a shrunk model's load-time chains are made of, and hand-edited forms of them, for
bench/session.mjs (why session creation from the default output is slower than from the original):

    /usr/bin/python3 bench/chain_forms.py SHRUNK.onnx OUT_PREFIX
    /usr/bin/python3 bench/chain_forms.py --census MODEL.onnx...     (the census only)

Prints JSON: the nodes onnxruntime folds at load (nodes whose inputs are all constants), by chain
kind, for the shrunk model and each form; writes OUT_PREFIX.FORM.onnx for each form:

fp16-grouped  the float16 small tensors that share their trailing dimensions concatenated along
              axis 0 into one float16 tensor, with one Cast and one Split per group, instead of one
              Cast per tensor (the same float32 values).
fp16-as-fp32  the float16 small tensors stored as float32 (no Cast; more bytes): the Casts' share.
int16-codes   each low-bit chain (Cast(int8 codes) + the low bits' chain, either form below) replaced
              by one Cast of int16 codes (codes * 2^bits + low bits),
              the 2^-bits folded into the chain's scale: the same float32 weights, the 8-bit
              chain's node count (Cast -> Mul -> Add -> Mul), 2 bytes a weight on disk.
int16+grouped both.
int-unpack    the low bits unpacked in uint8 (BitShift right, Mod without fmod), then Cast -> Div ->
              Reshape, instead of float Div -> Floor -> Mod(fmod) -> Div: the same values and bytes.
int-unpack+grouped  with the float16 tensors grouped as well.
low-bytes     the low bits stored unpacked, one uint8 a weight (the weight's shape), read by
              Cast -> Div(2^bits) alone: the same values, 2 nodes instead of 3 or 6 a chain;
              more raw bytes (a byte a weight instead of 2 bits), about the same compressed.
low-bytes+grouped  with the float16 tensors grouped as well.
bound-cast-mul  a timing bound, NOT the same weights: int16 codes, float16 tensors as float32, and
              each dequant chain cut to Cast -> Mul (no offset, no factor): the least any folded
              8-bit chain can cost at load.
bound-no-offset, bound-no-factor  the same bound with the chain's offset Add, or its input-channel
              factor Mul, left in: what that one step costs.

The low bits' chain has two forms: Cast -> Div -> Floor -> Mod -> Div -> Reshape over the packed
bytes, which files written before 2026-11-27 hold (tests/fixtures/low_bits_v1.onnx is one), and
Cast(int32) -> Gather from a digit table -> Reshape, which the engine writes now (code_format.h).
int16-codes, low-bytes and the bounds edit either; int-unpack only the first, and on a file with
none of them a form gives no file (`"file": null`), as there is nothing to edit.

Kinds: 'fp16 Cast' (depends on float16 constants only), 'low-bit unpack' (on the packed uint8
low bits only, and the digit tables), 'int8 dequant' (on int8 codes: Cast -> Add of the low bits
-> Mul -> Add -> Mul), 'codebook' (a Gather of a codebook by uint8 codes, and after it), 'int16
dequant' (the int16-codes form), 'other' (the original model's own foldable nodes).
"""
import json
import sys
from collections import Counter

import numpy as np
from onnx import TensorProto, helper, load, numpy_helper, save


def graphs(g):
    """The graph and every subgraph in it."""
    yield g
    for n in g.node:
        for a in n.attribute:
            if a.type == a.GRAPH:
                yield from graphs(a.g)
            for sub in a.graphs:
                yield from graphs(sub)


def constants(g):
    """name -> numpy array of the graph's own constants (initializers and Constant nodes)."""
    c = {t.name: numpy_helper.to_array(t) for t in g.initializer}
    for n in g.node:
        if n.op_type == 'Constant' and n.attribute and n.attribute[0].name == 'value':
            c[n.output[0]] = numpy_helper.to_array(n.attribute[0].t)
    return c


def fold_kinds(g):
    """Counter of kind -> foldable nodes (all inputs constant) in graph g (not its subgraphs)."""
    const = constants(g)
    sources = {name: {str(a.dtype)} for name, a in const.items()}
    readers = {}
    for n in g.node:
        for i in n.input:
            readers.setdefault(i, []).append(n)
    kinds = Counter()
    for n in g.node:
        if n.op_type == 'Constant':
            continue
        ins = [i for i in n.input if i]
        if not ins or not all(i in sources for i in ins):
            continue
        s = set().union(*(sources[i] for i in ins))
        # A Gather from a table the graph computes (a digit table), and the Cast of its indices: low
        # bits; a codebook's table is a constant.
        gathers = [n] if n.op_type == 'Gather' else [r for r in readers.get(n.output[0], []) if r.op_type == 'Gather']
        digit_gather = any(r.input[0] not in const and r.input[0] != n.output[0] for r in gathers)
        kind = 'low-bit unpack' if digit_gather and 'uint8' in s else chain_kind(n, s)
        for o in n.output:
            sources[o] = s | {kind}
        kinds[kind] += 1
    return kinds


def chain_kind(node, tags):
    """The chain a foldable node belongs to, by the constants (dtypes) and chains it depends on."""
    if 'int8' in tags or 'int8 dequant' in tags:
        return 'int8 dequant'
    if 'int16' in tags or 'int16 dequant' in tags:
        return 'int16 dequant'
    to_index = node.op_type == 'Cast' and helper.get_attribute_value(node.attribute[0]) in (TensorProto.INT32, TensorProto.INT64)
    if 'codebook' in tags or (node.op_type == 'Gather' and 'uint8' in tags) or ('uint8' in tags and to_index):
        return 'codebook'
    if 'uint8' in tags:
        return 'low-bit unpack'
    if 'float16' in tags:
        return 'fp16 Cast'
    return 'other'


def census(model):
    total, nodes = Counter(), 0
    for g in graphs(model.graph):
        total += fold_kinds(g)
        nodes += len(g.node)
    return {'nodes': nodes, 'folded': sum(total.values()), **dict(total)}


def opset(model):
    return next(o.version for o in model.opset_import if o.domain in ('', 'ai.onnx'))


def topological(nodes):
    """The nodes in an order where each comes after the nodes whose outputs it reads (names that no
    node makes are graph inputs, initializers or the outer graph's), else in the given order."""
    made = {o: k for k, n in enumerate(nodes) for o in n.output}
    done, order, visiting = set(), [], set()

    def visit(k):
        if k in done:
            return
        if k in visiting:
            raise ValueError('a cycle')
        visiting.add(k)
        for i in nodes[k].input:
            if i in made:
                visit(made[i])
        visiting.discard(k)
        done.add(k)
        order.append(nodes[k])

    for k in range(len(nodes)):
        visit(k)
    return order


class Editor:
    """Removes and adds nodes and constants of one graph; commit() puts the nodes in a valid order."""

    def __init__(self, g):
        self.g = g
        self.const = constants(g)
        self.producer = {o: n for n in g.node for o in n.output}
        self.consumers = {}  # value name -> the nodes of this graph reading it
        for n in g.node:
            for i in n.input:
                self.consumers.setdefault(i, []).append(n)
        self.uses = Counter(i for h in graphs(g) for n in h.node for i in n.input)
        self.outputs = {o.name for o in g.output}
        self.drop = set()
        self.added = []

    def remove_constant(self, name):
        if name in self.producer:
            self.drop.add(id(self.producer[name]))
        else:
            keep = [t for t in self.g.initializer if t.name != name]
            del self.g.initializer[:]
            self.g.initializer.extend(keep)

    def add_constant(self, name, array):
        self.added.append(helper.make_node('Constant', [], [name], value=numpy_helper.from_array(array, name)))

    def commit(self):
        """Puts the edits in; nodes and initializers that only removed nodes read go too (a digit
        table that every edited chain shared, for one), until none is left without a reader."""
        nodes = self.added + [n for n in self.g.node if id(n) not in self.drop]
        outer = {i for h in graphs(self.g) if h is not self.g for n in h.node for i in n.input} | {o.name for o in self.g.output}
        added = {id(n) for n in self.added}
        while True:
            used = {i for n in nodes for i in n.input} | outer
            kept = [n for n in nodes if any(o in used for o in n.output) or (id(n) not in added and self.unread_before(n))]
            if len(kept) == len(nodes):
                break
            nodes = kept
        used = {i for n in nodes for i in n.input} | outer
        keep = [t for t in self.g.initializer if t.name in used or self.uses[t.name] == 0]
        del self.g.initializer[:]
        self.g.initializer.extend(keep)
        del self.g.node[:]
        self.g.node.extend(topological(nodes))

    def unread_before(self, node):
        """Whether no output of `node` had a reader before the edits (a node of the model's own whose
        outputs nothing reads stays as it was)."""
        return all(self.uses[o] == 0 and o not in self.outputs for o in node.output)


def fp16_casts(ed):
    """The Cast(to float) nodes of a float16 constant used by that Cast only."""
    out = []
    for n in ed.g.node:
        if n.op_type == 'Cast' and n.input[0] in ed.const and ed.const[n.input[0]].dtype == np.float16 \
                and ed.uses[n.input[0]] == 1 and helper.get_attribute_value(n.attribute[0]) == TensorProto.FLOAT:
            out.append(n)
    return out


def group_fp16(model):
    for index, g in enumerate(graphs(model.graph)):
        ed = Editor(g)
        groups = {}
        for n in fp16_casts(ed):
            a = ed.const[n.input[0]]
            if a.ndim >= 1:
                groups.setdefault((a.ndim, a.shape[1:]), []).append(n)
        for k, (key, casts) in enumerate(groups.items()):
            if len(casts) < 2:
                continue
            arrays = [ed.const[c.input[0]] for c in casts]
            base = f'fp16_group_{index}_{k}'
            ed.add_constant(f'{base}_h', np.concatenate(arrays, axis=0))
            cast = helper.make_node('Cast', [f'{base}_h'], [f'{base}_f'], to=TensorProto.FLOAT)
            sizes = [a.shape[0] for a in arrays]
            if opset(model) >= 13:
                ed.add_constant(f'{base}_sizes', np.array(sizes, np.int64))
                split = helper.make_node('Split', [f'{base}_f', f'{base}_sizes'], [c.output[0] for c in casts], axis=0)
            else:
                split = helper.make_node('Split', [f'{base}_f'], [c.output[0] for c in casts], axis=0, split=sizes)
            for c in casts:
                ed.remove_constant(c.input[0])
                ed.drop.add(id(c))
            ed.added.extend([cast, split])
        ed.commit()


def fp16_as_fp32(model):
    for g in graphs(model.graph):
        ed = Editor(g)
        for c in fp16_casts(ed):
            a = ed.const[c.input[0]]
            ed.remove_constant(c.input[0])
            ed.drop.add(id(c))
            ed.add_constant(c.output[0], a.astype(np.float32))
        ed.commit()


CAST_TO = {TensorProto.FLOAT: np.float32, TensorProto.INT32: np.int32, TensorProto.INT64: np.int64}


def chain_value(ed, name):
    """Evaluates a chain of constant-input nodes ending at `name` with numpy (the unpack ops only)."""
    if name in ed.const:
        return ed.const[name]
    n = ed.producer[name]
    x = [chain_value(ed, i) for i in n.input]
    op = n.op_type
    if op == 'Cast':
        return x[0].astype(CAST_TO[helper.get_attribute_value(n.attribute[0])])
    if op == 'Gather':  # the digits of each byte, from the graph's digit table
        axis = next((helper.get_attribute_value(a) for a in n.attribute if a.name == 'axis'), 0)
        return np.take(x[0], x[1], axis=axis)
    if op == 'Div':
        return (x[0] / x[1]).astype(np.float32)
    if op == 'Floor':
        return np.floor(x[0])
    if op == 'Mod':
        return np.fmod(x[0], x[1]).astype(np.float32)
    if op == 'Reshape':
        return x[0].reshape(x[1])
    raise ValueError(f'unexpected {op} in a low-bit chain')


def low_bit_ends(ed):
    """The 9- and 10-bit weights of a graph: (add, cast, low, mul) for each Add of the int8 codes'
    Cast and the low bits' value (`low`: the Reshape ending either form of their chain), read by the
    Mul of the scale."""
    ends = []
    for add in ed.g.node:
        if add.op_type != 'Add' or len(add.input) != 2:
            continue
        cast, low = (ed.producer.get(i) for i in add.input)
        if not (cast and low and cast.op_type == 'Cast' and low.op_type == 'Reshape'):
            continue
        if cast.input[0] not in ed.const or ed.const[cast.input[0]].dtype != np.int8:
            continue
        mul = ed.consumers[add.output[0]]
        if len(mul) != 1 or mul[0].op_type != 'Mul' or mul[0].input[1] not in ed.const:
            continue
        ends.append((add, cast, low, mul[0]))
    return ends


def low_bits(ed, low):
    """The low bits' values (low bits / 2^bits, in [0, 1)) and 2^bits."""
    value = chain_value(ed, low.output[0])
    steps = {float(v) for v in np.unique(value)}
    return value, 1 << int(np.ceil(np.log2(1 / min((v for v in steps if v > 0), default=1))))


def int16_codes(model):
    """Returns how many weights it edited."""
    edited = 0
    for g in graphs(model.graph):
        ed = Editor(g)
        for add, cast, low, mul in low_bit_ends(ed):
            hi = ed.const[cast.input[0]].astype(np.int32)
            lo, base = low_bits(ed, low)
            codes = hi * base + np.rint(lo * base).astype(np.int32)
            assert np.array_equal(codes / base, hi + lo.astype(np.float64)), 'low bits not multiples of 1/2^bits'
            ed.drop.add(id(low))  # the rest of the low bits' chain, once nothing reads it, goes in commit()
            ed.remove_constant(cast.input[0])
            ed.drop.update({id(cast), id(add)})
            name = f'{add.output[0]}_i16'
            ed.add_constant(name, codes.astype(np.int16))
            ed.added.append(helper.make_node('Cast', [name], [add.output[0]], to=TensorProto.FLOAT))
            scale = ed.const[mul.input[1]]
            if ed.uses[mul.input[1]] != 1:
                raise ValueError('a shared scale')
            ed.remove_constant(mul.input[1])
            ed.add_constant(mul.input[1], (scale / np.float32(base)).astype(np.float32))
            edited += 1
        ed.commit()
    return edited


def low_bit_chains(ed):
    """The low-bit chains of a graph: (cast, div, floor, mod, div2, reshape) nodes, Cast of uint8 first."""
    consumers = ed.consumers
    chains = []
    for cast in ed.g.node:
        if cast.op_type != 'Cast' or cast.input[0] not in ed.const or ed.const[cast.input[0]].dtype != np.uint8:
            continue
        if helper.get_attribute_value(cast.attribute[0]) != TensorProto.FLOAT:
            continue
        chain, x = [cast], cast
        for op in ('Div', 'Floor', 'Mod', 'Div', 'Reshape'):
            nxt = consumers.get(x.output[0], [])
            if len(nxt) != 1 or nxt[0].op_type != op:
                break
            x = nxt[0]
            chain.append(x)
        if len(chain) == 6:
            chains.append(chain)
    return chains


def int_unpack(model):
    """The low bits unpacked in uint8 (BitShift right, then Mod without fmod), then Cast and Div:
    no float fmod over every weight. The chains of the low bits' first form only (files written
    before the digit tables). Returns how many it edited."""
    edited = 0
    for g in graphs(model.graph):
        ed = Editor(g)
        for k, (cast, div, floor, mod, div2, reshape) in enumerate(low_bit_chains(ed)):
            divisors = ed.const[div.input[1]]
            base = ed.const[mod.input[1]]
            shifts = np.log2(divisors).astype(np.uint8)
            assert np.array_equal(np.exp2(shifts.astype(np.float32)), divisors)
            name = f'{reshape.output[0]}_u8'
            ed.add_constant(f'{name}_shifts', shifts.reshape(divisors.shape))
            ed.add_constant(f'{name}_base', np.array(base, np.uint8).reshape(base.shape))
            nodes = [
                helper.make_node('BitShift', [cast.input[0], f'{name}_shifts'], [f'{name}_shifted'], direction='RIGHT'),
                helper.make_node('Mod', [f'{name}_shifted', f'{name}_base'], [f'{name}_low'], fmod=0),
                helper.make_node('Cast', [f'{name}_low'], [f'{name}_f'], to=TensorProto.FLOAT),
                helper.make_node('Div', [f'{name}_f', div2.input[1]], [f'{name}_v']),
                helper.make_node('Reshape', [f'{name}_v', reshape.input[1]], [reshape.output[0]]),
            ]
            for n in (cast, div, floor, mod, div2, reshape):
                ed.drop.add(id(n))
            ed.added.extend(nodes)
            edited += 1
        ed.commit()
    return edited


def low_bytes(model):
    """The low bits stored one uint8 a weight, read by Cast -> Div: no unpacking at load. Returns how
    many weights it edited."""
    edited = 0
    for g in graphs(model.graph):
        ed = Editor(g)
        for add, cast, low, mul in low_bit_ends(ed):
            value, base = low_bits(ed, low)
            stored = np.rint(value * base).astype(np.uint8)
            assert np.array_equal(stored.astype(np.float32) / np.float32(base), value)
            name = f'{low.output[0]}_lowbytes'
            ed.add_constant(name, stored)
            ed.add_constant(f'{name}_base', np.array(base, np.float32))
            ed.added.extend([
                helper.make_node('Cast', [name], [f'{name}_f'], to=TensorProto.FLOAT),
                helper.make_node('Div', [f'{name}_f', f'{name}_base'], [low.output[0]]),
            ])
            ed.drop.add(id(low))  # the rest of the chain goes in commit()
            edited += 1
        ed.commit()
    return edited


def chain_bound(drop):
    """A timing bound, not the same weights: each Cast -> Mul (scale) -> Add (offset) -> Mul (factor)
    dequant chain (after int16_codes) without the steps at positions `drop` (2: the offset Add,
    3: the factor Mul): what those steps cost onnxruntime at load."""
    def edit(model):
        for g in graphs(model.graph):
            ed = Editor(g)
            consumers = ed.consumers
            for cast in list(g.node):
                if cast.op_type != 'Cast' or cast.input[0] not in ed.const or ed.const[cast.input[0]].dtype not in (np.int8, np.int16):
                    continue
                chain, x = [cast], cast
                while True:
                    nxt = consumers.get(x.output[0], [])
                    if len(nxt) != 1 or nxt[0].op_type not in ('Mul', 'Add') or \
                            not all(i in ed.const for i in nxt[0].input if i != x.output[0]):
                        break
                    x = nxt[0]
                    chain.append(x)
                if [n.op_type for n in chain[1:]] != ['Mul', 'Add', 'Mul']:
                    continue
                final = chain[-1].output[0]
                kept = [n for k, n in enumerate(chain[1:], 1) if k not in drop]
                for n in chain[1:]:
                    ed.drop.add(id(n))
                source = cast.output[0]
                for k, n in enumerate(kept):
                    const = next(i for i in n.input if i in ed.const)
                    out = final if k == len(kept) - 1 else f'{final}_bound{k}'
                    ed.added.append(helper.make_node(n.op_type, [source, const], [out]))
                    source = out
            ed.commit()
    return edit


FORMS = {
    'fp16-grouped': [group_fp16],
    'fp16-as-fp32': [fp16_as_fp32],
    'int16-codes': [int16_codes],
    'int16+grouped': [int16_codes, group_fp16],
    'int-unpack': [int_unpack],
    'int-unpack+grouped': [int_unpack, group_fp16],
    'low-bytes': [low_bytes],
    'low-bytes+grouped': [low_bytes, group_fp16],
    'bound-cast-mul': [int16_codes, fp16_as_fp32, chain_bound({2, 3})],
    'bound-no-offset': [int16_codes, fp16_as_fp32, chain_bound({2})],
    'bound-no-factor': [int16_codes, fp16_as_fp32, chain_bound({3})],
}


def main():
    if sys.argv[1] == '--census':
        print(json.dumps({f: census(load(f)) for f in sys.argv[2:]}))
        return
    shrunk, prefix = sys.argv[1], sys.argv[2]
    out = {'shrunk': census(load(shrunk))}
    for form, edits in FORMS.items():
        m = load(shrunk)
        # The form's first edit finding nothing to edit: no file (the default has no chain of that form).
        if edits[0](m) == 0:
            out[form] = {'file': None}
            continue
        for edit in edits[1:]:
            edit(m)
        path = f'{prefix}.{form}.onnx'
        save(m, path)
        out[form] = {'file': path, **census(m)}
    print(json.dumps(out))


if __name__ == '__main__':
    main()
