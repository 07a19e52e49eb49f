"""Turns the inline asm statements ROCm kernels use into calls into the sim, keeping every line where it was.

Called by chevrons.py on each source. An `asm`/`__asm__` statement (with volatile, outputs, inputs, clobbers) whose
every instruction is one of the forms below becomes a block of C++ on the statement's first line, followed by as many
newlines as the statement had; any other asm string is an error naming the file, the line and the string.

Forms (AMD CDNA3 ISA guide: "SOPP" S_WAITCNT / S_NOP, "Data Parallel Processing (DPP)", VOP2 V_DOT2C_F32_F16):
    s_waitcnt [vmcnt(N)] [expcnt(N)] [lgkmcnt(N)]   (joined by spaces, '&' or ','), or s_waitcnt IMM (gfx9 encoding)
    s_nop N, s_setprio N, s_sleep N   (no value changes: no-ops on the sim)
    v_mov_b32 D, S [dpp]          v_add_f32 D, S0, S1 [dpp]          v_max_f32 D, S0, S1 [dpp]
    v_dot2c_f32_f16 D, S0, S1     (D += S0.lo * S1.lo + S0.hi * S1.hi)
  dpp: quad_perm:[a,b,c,d] row_shl:N row_shr:N row_ror:N wave_shl:1 wave_rol:1 wave_shr:1 wave_ror:1 row_mirror
       row_half_mirror row_bcast:15 row_bcast:31, with row_mask:M bank_mask:M (default 0xf) and bound_ctrl:0/1 (in
       LLVM's assembler syntax before gfx11 both set BOUND_CTRL: an invalid source lane reads 0 and the lane is
       written). The VALU names may carry LLVM's encoding suffixes _e32 / _dpp.
  Operands are %N or %[name] (outputs first, then inputs), with constraints "=v", "+v", "v", or a digit tying an input
  to that output's register. Registers are modelled as temporaries: a tied input or "+v" gives the output register its
  first value, otherwise it starts undefined (all bits set, so a result that relies on it shows); instructions run in
  order on them and the outputs are assigned at the end.
"""
import re

ASM_KEYWORD = re.compile(r'(?:__asm__|__asm|asm)\b')
QUALIFIERS = ('volatile', '__volatile__', '__volatile', 'inline', 'goto')


class AsmError(Exception):
    pass


def skip_literal(text, i):
    """Index after the string or char literal starting at text[i]."""
    q = text[i]
    i += 1
    while i < len(text) and text[i] != q:
        i += 2 if text[i] == '\\' else 1
    return i + 1


def split_top(s, sep):
    """Splits s at `sep` characters outside parentheses, brackets and literals."""
    parts, depth, cur, i = [], 0, [], 0
    while i < len(s):
        c = s[i]
        if c in '"\'':
            j = skip_literal(s, i)
            cur.append(s[i:j])
            i = j
            continue
        if c in '([{':
            depth += 1
        elif c in ')]}':
            depth -= 1
        if c == sep and depth == 0:  # a C++ `::` of an operand lies inside its parentheses
            parts.append(''.join(cur))
            cur = []
        else:
            cur.append(c)
        i += 1
    parts.append(''.join(cur))
    return parts


def unescape(lit):
    body = lit[1:-1]
    return bytes(body, 'utf-8').decode('unicode_escape')


def parse_template(s):
    """The concatenated string literals at the start of s."""
    out, i = [], 0
    while True:
        while i < len(s) and s[i].isspace():
            i += 1
        if i < len(s) and s[i] == '"':
            j = skip_literal(s, i)
            out.append(unescape(s[i:j]))
            i = j
        else:
            break
    if not out or s[i:].strip():
        raise AsmError('the asm template is not a string literal')
    return ''.join(out)


def parse_operands(part):
    ops = []
    for o in split_top(part, ','):
        o = o.strip()
        if not o:
            continue
        m = re.match(r'(?:\[(\w+)\]\s*)?"([^"]*)"\s*\((.*)\)\s*$', o, re.S)
        if not m:
            raise AsmError(f'operand `{o}` is not [name] "constraint" (expression)')
        ops.append({'name': m.group(1), 'constraint': m.group(2), 'expr': m.group(3)})
    return ops


DPP_FIXED = {'wave_shl:1': 0x130, 'wave_rol:1': 0x134, 'wave_shr:1': 0x138, 'wave_ror:1': 0x13C,
             'row_mirror': 0x140, 'row_half_mirror': 0x141, 'row_bcast:15': 0x142, 'row_bcast:31': 0x143}


def parse_dpp(mods):
    """(ctrl, row_mask, bank_mask, bound_ctrl) from the DPP modifiers, or None when there are none."""
    ctrl, row_mask, bank_mask, bc = None, 0xF, 0xF, False
    for m in mods:
        if m in DPP_FIXED:
            ctrl = DPP_FIXED[m]
        elif re.fullmatch(r'quad_perm:\[\d,\d,\d,\d\]', m):
            q = [int(x) for x in re.findall(r'\d', m[len('quad_perm:'):])]
            if max(q) > 3:
                raise AsmError(f'`{m}`: quad_perm selects lanes 0-3')
            ctrl = q[0] | q[1] << 2 | q[2] << 4 | q[3] << 6
        elif re.fullmatch(r'row_(shl|shr|ror):\d+', m):
            kind, n = m[4:7], int(m.split(':')[1])
            if not 1 <= n <= 15:
                raise AsmError(f'`{m}`: the shift is 1-15')
            ctrl = {'shl': 0x100, 'shr': 0x110, 'ror': 0x120}[kind] + n
        elif re.fullmatch(r'(row_mask|bank_mask):(0x[0-9a-fA-F]+|\d+)', m):
            v = int(m.split(':')[1], 0)
            if v > 0xF:
                raise AsmError(f'`{m}`: a 4-bit mask')
            if m.startswith('row'):
                row_mask = v
            else:
                bank_mask = v
        elif m in ('bound_ctrl:0', 'bound_ctrl:1'):
            bc = True
        else:
            raise AsmError(f'modifier `{m}` is not supported')
    if ctrl is None:
        if (row_mask, bank_mask, bc) != (0xF, 0xF, False):
            raise AsmError('DPP masks or bound_ctrl without a DPP control')
        return None
    return ctrl, row_mask, bank_mask, bc


def waitcnt(args, operand):
    """(vmcnt, expcnt, lgkmcnt) as C++ expressions; a count may be an immediate operand (%N with "n" or "i")."""
    vm, exp, lgkm = -1, -1, -1
    a = args.strip()
    if re.fullmatch(r'(0x[0-9a-fA-F]+|\d+)', a):
        imm = int(a, 0)  # gfx9: vmcnt imm[3:0] | imm[15:14] << 4, expcnt imm[6:4], lgkmcnt imm[11:8]
        return ((imm & 0xF) | ((imm >> 14) & 3) << 4, (imm >> 4) & 7, (imm >> 8) & 0xF)
    for tok in re.split(r'[\s&,]+', a):
        if not tok:
            continue
        m = re.fullmatch(r'(vmcnt|expcnt|lgkmcnt)\((\d+|%\d+|%\[\w+\])\)', tok)
        if not m:
            raise AsmError(f's_waitcnt counter `{tok}` is not vmcnt(N), expcnt(N) or lgkmcnt(N)')
        n = operand(m.group(2)) if m.group(2).startswith('%') else int(m.group(2))
        if m.group(1) == 'vmcnt':
            vm = n
        elif m.group(1) == 'expcnt':
            exp = n
        else:
            lgkm = n
    if (vm, exp, lgkm) == (-1, -1, -1):
        raise AsmError('s_waitcnt without a counter')
    return vm, exp, lgkm


VOP = {'v_mov_b32': 1, 'v_add_f32': 2, 'v_max_f32': 2, 'v_dot2c_f32_f16': 2}


def instruction(ins, reg, immediate):
    """C++ for one instruction; reg(token) names the register temporary of an operand token, immediate(token) the
    C++ expression of an "n"/"i" operand."""
    words = ins.split(None, 1)
    op, rest = words[0], (words[1] if len(words) > 1 else '')
    if op.startswith('v_'):
        op = re.sub(r'_(e32|dpp)$', '', op)
    if op == 's_waitcnt':
        return '::hipsim_detail::asm_s_waitcnt(%s, %s, %s);' % waitcnt(rest, immediate)
    if op in ('s_nop', 's_setprio', 's_sleep'):
        if not re.fullmatch(r'\s*(0x[0-9a-fA-F]+|\d+|%\d+|%\[\w+\])\s*', rest):
            raise AsmError(f'{op} takes an immediate')
        return ''
    if op not in VOP:
        raise AsmError(f'instruction `{op}` is not supported')
    args = [a.strip() for a in split_top(rest, ',')]
    tail = args[-1].split()
    args[-1], mods = tail[0] if tail else '', tail[1:]
    if len(args) != 1 + VOP[op]:
        raise AsmError(f'`{op}` takes {1 + VOP[op]} operands')
    d, *srcs = [reg(a) for a in args]
    dpp = parse_dpp(mods)
    if op == 'v_dot2c_f32_f16':
        if dpp:
            raise AsmError('v_dot2c_f32_f16 with DPP is not supported')
        return f'{d} = ::hipsim_detail::asm_dot2c_f32_f16({d}, {srcs[0]}, {srcs[1]});'
    ctrl, rm, bm, bc = dpp if dpp else (None, 0xF, 0xF, False)
    kind = {'v_mov_b32': 'mov_b32', 'v_add_f32': 'add_f32', 'v_max_f32': 'max_f32'}[op]
    s1 = srcs[1] if len(srcs) > 1 else srcs[0]
    if ctrl is None:
        return f'{d} = ::hipsim_detail::asm_vop(::hipsim_detail::AsmOp::{kind}, {d}, {srcs[0]}, {s1});'
    bcs = 'true' if bc else 'false'
    return (f'{d} = ::hipsim_detail::asm_vop_dpp(::hipsim_detail::AsmOp::{kind}, {d}, {srcs[0]}, {s1}, '
            f'{ctrl:#x}, {rm:#x}, {bm:#x}, {bcs});')


def translate(body):
    """C++ replacing the asm statement whose parenthesised part is `body`."""
    parts = split_top(body, ':')
    tmpl = parse_template(parts[0])
    outs = parse_operands(parts[1]) if len(parts) > 1 else []
    ins = parse_operands(parts[2]) if len(parts) > 2 else []
    ops = outs + ins
    names = {o['name']: i for i, o in enumerate(ops) if o['name']}
    decl = []
    for i, o in enumerate(outs):
        c = o['constraint']
        if c not in ('=v', '+v', '=&v'):
            raise AsmError(f'output constraint "{c}" is not supported ("=v", "+v")')
        tied = [ins[j]['expr'] for j in range(len(ins)) if ins[j]['constraint'] == str(i)]
        init = f'({o["expr"]})' if c == '+v' else (f'({tied[0]})' if tied else
                                                    f'::hipsim_detail::asm_undef<__hipsim_t{i}>()')
        decl.append(f'using __hipsim_t{i} = ::std::remove_reference_t<decltype({o["expr"]})>; '
                    f'__hipsim_t{i} __hipsim_r{i} = {init};')
    for j, o in enumerate(ins):
        i = len(outs) + j
        c = o['constraint']
        if c.isdigit():
            if int(c) >= len(outs):
                raise AsmError(f'input constraint "{c}" ties to no output')
            decl.append(f'auto& __hipsim_r{i} = __hipsim_r{c};')
        elif c in ('v', 's', 'r', 'i', 'n'):  # "i"/"n": an immediate the instruction may name (s_waitcnt counts)
            decl.append(f'auto __hipsim_r{i} = ({o["expr"]});')
        else:
            raise AsmError(f'input constraint "{c}" is not supported ("v", or an output\'s number)')

    def reg(tok):
        m = re.fullmatch(r'%(\d+)|%\[(\w+)\]', tok)
        if not m:
            raise AsmError(f'operand `{tok}` is not %N or %[name]')
        k = int(m.group(1)) if m.group(1) else names.get(m.group(2), -1)
        if not 0 <= k < len(ops):
            raise AsmError(f'operand `{tok}` names no operand')
        return f'__hipsim_r{k}'

    def immediate(tok):
        k = int(reg(tok)[len('__hipsim_r'):])
        if ops[k]['constraint'] not in ('n', 'i'):
            raise AsmError(f'operand `{tok}` of an s_waitcnt count is not an immediate ("n" or "i")')
        return f'int({ops[k]["expr"]})'

    code = []
    for ins_text in re.split(r'[\n;]', tmpl):
        ins_text = ins_text.strip()
        if ins_text:
            code.append(instruction(ins_text, reg, immediate))
    assign = [f'({o["expr"]}) = __hipsim_r{i};' for i, o in enumerate(outs)]
    return '{ ' + ' '.join(decl + code + assign) + ' }'


def rewrite_asm(text, path):
    out, pos, i, n = [], 0, 0, len(text)
    while i < n:
        c = text[i]
        if c == '/' and text[i + 1:i + 2] == '/':
            i = text.find('\n', i)
            i = n if i < 0 else i
            continue
        if c == '/' and text[i + 1:i + 2] == '*':
            j = text.find('*/', i + 2)
            i = n if j < 0 else j + 2
            continue
        if c in '"\'':
            i = skip_literal(text, i)
            continue
        starts_word = c in 'a_' and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == '_'))
        m = ASM_KEYWORD.match(text, i) if starts_word else None
        if not m:
            i += 1
            continue
        j = m.end()
        while True:
            while j < n and text[j].isspace():
                j += 1
            q = re.match(r'\w+', text[j:])
            if q and q.group(0) in QUALIFIERS:
                j += len(q.group(0))
                continue
            break
        line = text.count('\n', 0, i) + 1
        if j >= n or text[j] != '(':
            i = j
            continue
        depth, k = 0, j
        while k < n:
            if text[k] in '"\'':
                k = skip_literal(text, k)
                continue
            if text[k] == '(':
                depth += 1
            elif text[k] == ')':
                depth -= 1
                if depth == 0:
                    break
            k += 1
        end = text.find(';', k)
        body = text[j + 1:k]
        try:
            code = translate(body)
        except AsmError as e:
            try:
                shown = parse_template(split_top(body, ':')[0])
            except AsmError:
                shown = body.strip()
            raise SystemExit(f'{path}:{line}: error: hipsim: inline asm not supported on the sim: '
                             f'{shown!r} ({e})')
        out.append(text[pos:i])
        out.append(code + '\n' * text.count('\n', i, end + 1))
        pos = i = end + 1
    out.append(text[pos:])
    return ''.join(out)
