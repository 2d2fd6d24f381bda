#!/usr/bin/env python3
"""Exact search for cheap router rounds of random #5's base-18 exchange.

An offline study (docs/cost-model.md, "Random #5 rounds by integer
programs"), not part of the build or of any test: it needs the COIN-OR CBC
solver (`apt-get install coinor-cbc`), which mapc does not.

Random #5 of the mixed-radix bench (648 x 90 u8 on the 32 x 32 MasPar with
clusters of 16, 003 5.6.4) moves, in the direct form, 18 values from every
PE. PE p = a3 + 3 a4 + 9 a5 + 18 a6 + 108 a7 sends its slot digit (a1, a2)
to q = a5 + 2 a2 + 12 a3 + 36 a7 + 216 a1 (`check` with random5_dump's
output compares these with findDigitExchange's): 36 independent complete bipartite blocks
of 18 senders x 18 receivers (a3, a5, a7 fixed). A round is one send per PE,
a perfect matching of every block.

The simulator (runtime/lib/MasPar.cpp, routerTicks) prices a round plainly
at max over clusters of (senders, receivers) x (ropen + rsend) = 16 x 123 =
1968, or clustered at P x (ropen + G x rsend), P the most distinct partner
clusters any cluster sends to or receives from, G the most senders of one
cluster sending into one cluster; it charges the cheaper. `price` below is
that code in Python; `check` compares it with the simulator's ticks for
function 6.1's order (pinned in ClusterTrafficTest.cpp).

The per-round model aggregates PEs by cluster: m[b, A, B] senders of block
b in cluster A that send into cluster B this round. Because each block is
complete bipartite, any non-negative integer matrix m[b] whose row sums are
the block's senders per cluster and whose column sums its receivers per
cluster is one perfect matching of the block (pair the PEs off in any
order), and every matching gives one such matrix: the model is exact. A
binary u[A, B] says cluster A sends into B; then
    sum_b m[b, A, B] <= G u[A, B],  sum_B u[A, B] <= P,  sum_A u[A, B] <= P,
plus valid cover cuts (add_cover_cuts) that let CBC prove infeasibility.

Commands:
  check [DUMP]          the traffic's numbers of ClusterTrafficTest and the
                        prices of 6.1's 18 rounds; with DUMP (the output of
                        random5_dump.cpp) compared with the runtime's
  single P G [secs]     is there one round with at most P partners and
                        groups of at most G?  (CBC, time limit secs)
  single-pe P G [secs]  the same with the PE-by-PE model (no aggregation)
  local P G             the relaxation to one cluster at a time: which
                        clusters cannot send (receive) within (P, G) alone
  selftest [n]          every row of the models holds at 6.1's rounds and n
                        random ones, at their own P and G, not below
  frontier [secs]       `single` for every (P, G) whose round would save
                        enough for 0.5 (cost <= 1751), the maximal ones
  partial SEED [OUT]    a schedule of partial rounds (only some PEs send)
                        by a seeded greedy search, checked and priced;
                        OUT gets its rounds for `random5_dump price`
  verify ROUNDS SIM     ROUNDS (from `partial`) against SIM, the output of
                        `random5_dump price < ROUNDS`: equal ticks
  mixed [secs]          the linear relaxation that bounds the sends of any
                        schedule, partial rounds included (mixed-int: the
                        same with integers, time-limited)

`single` appends a round it finds to $RANDOM5_ROUNDS when that is set, one
line of 648 destinations, for `random5_dump price` (the simulator's ticks).
"""

import collections
import itertools
import os
import re
import subprocess
import sys
import tempfile
import time

WIDTH, HEIGHT = 32, 32
BLOCK_W, BLOCK_H = 4, 4  # clusterBlock(32, 32, 16)
ROPEN, RSEND8 = 42, 81  # CostModel: ropen, rsend[widthIndex(8)]
BASE = 18
HALF_BOUND, MEMORY, SCHEDULE = 36736, 3600, 1606
BUDGET = HALF_BOUND - MEMORY - SCHEDULE  # 31530 ticks for the 18 rounds
PLAIN_ROUND = 16 * (ROPEN + RSEND8)  # 1968


def cluster_of(pe):
    """MasPar::clusterOfPe on the 32 x 32 grid, clusters of 4 x 4."""
    x, y = pe % WIDTH, pe // WIDTH
    return (y // BLOCK_H) * ((WIDTH + BLOCK_W - 1) // BLOCK_W) + x // BLOCK_W


def blocks():
    """The 36 blocks: (senders, receivers), each a list of 18 PEs; sender
    (a4, a6) sends to receiver (a1, a2) once over the exchange."""
    out = []
    for a3, a5, a7 in itertools.product(range(3), range(2), range(6)):
        s = [a3 + 3 * a4 + 9 * a5 + 18 * a6 + 108 * a7
             for a6 in range(6) for a4 in range(3)]
        r = [a5 + 2 * a2 + 12 * a3 + 36 * a7 + 216 * a1
             for a1 in range(3) for a2 in range(6)]
        out.append((s, r))
    return out


def price(dest):
    """routerTicks' plain and clustered prices of one round: dest maps each
    sending PE to its receiver (every PE of the round sends, 8 bytes)."""
    senders = collections.Counter(cluster_of(p) for p in dest)
    receivers = collections.Counter(cluster_of(q) for q in dest.values())
    plain = max(max(senders.values()), max(receivers.values()))
    out = collections.defaultdict(collections.Counter)
    inn = collections.defaultdict(set)
    for p, q in dest.items():
        out[cluster_of(p)][cluster_of(q)] += 1
        inn[cluster_of(q)].add(cluster_of(p))
    partners = max(max(len(c) for c in out.values()),
                   max(len(c) for c in inn.values()))
    group = max(max(c.values()) for c in out.values())
    return (plain * (ROPEN + RSEND8), partners * (ROPEN + group * RSEND8),
            partners, group)


def round_cost(p, g):
    return p * (ROPEN + g * RSEND8)


def traffic():
    t = collections.Counter()
    for s, r in blocks():
        for p in s:
            for q in r:
                t[cluster_of(p), cluster_of(q)] += 1
    return t


def connection_ticks(t, g):
    """ClusterTrafficTest's connectionTicks."""
    out, inn = collections.Counter(), collections.Counter()
    for (a, b), n in t.items():
        out[a] += -(-n // g)
        inn[b] += -(-n // g)
    return max(max(out.values()), max(inn.values())) * (ROPEN + g * RSEND8)


def digits(p):
    """PE p's digits (a3, a4, a5, a6, a7)."""
    return p % 3, p // 3 % 3, p // 9 % 2, p // 18 % 6, p // 108


def dest_of(p, y):
    """Where PE p sends its slot digit y = a1 + 3 a2 (destPe[p * 18 + y])."""
    a3, _, a5, _, a7 = digits(p)
    a1, a2 = y % 3, y // 3
    return a5 + 2 * a2 + 12 * a3 + 36 * a7 + 216 * a1


def send_digit(p):
    """findDigitExchange's sendDigit: x = 6 a4 + a6."""
    _, a4, _, a6, _ = digits(p)
    return 6 * a4 + a6


def order_61(k):
    """Round k of function 6.1's order: the PE of digit x sends its slot
    digit x + k mod 18."""
    return {p: dest_of(p, (send_digit(p) + k) % BASE) for p in range(648)}


def check(dump=None):
    """The numbers of ClusterTrafficTest; with the output of
    random5_dump.cpp, the runtime's exchange and round prices too."""
    t = traffic()
    ticks = [connection_ticks(t, g) for g in (1, 2, 3, 4)]
    print("connection ticks g = 1..4:", ticks)
    assert ticks == [35424, 29376, 31920, 30744], ticks
    assert BUDGET == 31530 and PLAIN_ROUND == 1968
    for s, r in blocks():
        assert sorted(dest_of(p, y) for p in s for y in range(BASE)
                      if True) == sorted(r * BASE)
    sim = {}
    if dump:
        for line in open(dump):
            f = line.split()
            if f[0] == "pe":
                p = int(f[1])
                assert int(f[3]) == cluster_of(p), line
                assert int(f[5]) == send_digit(p), line
                assert [int(v) for v in f[7:]] == \
                    [dest_of(p, y) for y in range(BASE)], line
            elif f[0] == "round":
                sim[int(f[1])] = (int(f[3]), int(f[5]))
        assert len(sim) == BASE
        print("the dump's clusters, digits and destinations agree")
    print("6.1's order: (plain, clustered, P, G) here; the simulator's")
    for k in range(BASE):
        mine = price(order_61(k))
        print(" round", k, mine, sim.get(k, ""))
        if dump:
            assert mine[:2] == sim[k], k


def frontier_pairs():
    """The maximal (P, G) whose clustered round saves enough: 18 rounds
    that each cost more than `most` cannot meet BUDGET. Every (P, G) of a
    round at most `most` is at most one of these in both."""
    need = PLAIN_ROUND * BASE - BUDGET  # 3894 ticks to save
    most = PLAIN_ROUND - -(-need // BASE)  # a round must cost <= 1751
    best = {}
    for g in range(1, 40):
        p = most // round_cost(1, g)
        if p >= 1:
            best[p] = max(best.get(p, 0), g)
    return most, sorted(best.items(), reverse=True)


def write_lp(path, p_max, g_max):
    """The single-round model in CPLEX LP format."""
    bl = blocks()
    lines = ["Minimize", " obj: 0 dummy", "Subject To"]
    pair_terms = collections.defaultdict(list)
    bounds, generals, binaries = [], [], ["dummy"]
    n = 0
    for i, (s, r) in enumerate(bl):
        sc = collections.Counter(cluster_of(p) for p in s)
        rc = collections.Counter(cluster_of(q) for q in r)
        rows = collections.defaultdict(list)
        cols = collections.defaultdict(list)
        for a, b in itertools.product(sc, rc):
            v = f"m_{i}_{a}_{b}"
            rows[a].append(v)
            cols[b].append(v)
            pair_terms[a, b].append(v)
            ub = min(sc[a], rc[b], g_max)
            bounds.append(f" 0 <= {v} <= {ub}")
            generals.append(v)
            # m <= ub u: tightens the relaxation
            lines.append(f" t{n}: {v} - {ub} u_{a}_{b} <= 0")
            n += 1
        for a, vs in rows.items():
            lines.append(f" r{n}: " + " + ".join(vs) + f" = {sc[a]}")
            n += 1
        for b, vs in cols.items():
            lines.append(f" c{n}: " + " + ".join(vs) + f" = {rc[b]}")
            n += 1
    n = add_partner_rows(lines, pair_terms, binaries, p_max, g_max, n)
    n = add_cover_cuts(lines, bl, pair_terms, g_max, n)
    finish_lp(path, lines, bounds, generals, binaries)
    return len(generals), len(binaries) - 1, n


def write_pe_lp(path, p_max, g_max):
    """The same round PE by PE, with no aggregation: x[p, q] = 1 when
    sender p sends to receiver q of its block; every sender sends once,
    every receiver receives once. Larger (11664 binaries), as a check of
    the aggregated model."""
    lines = ["Minimize", " obj: 0 dummy", "Subject To"]
    pair_terms = collections.defaultdict(list)
    binaries = ["dummy"]
    n = 0
    for s, r in blocks():
        for p in s:
            lines.append(f" s{n}: " + " + ".join(f"x_{p}_{q}" for q in r)
                         + " = 1")
            n += 1
        for q in r:
            lines.append(f" q{n}: " + " + ".join(f"x_{p}_{q}" for p in s)
                         + " = 1")
            n += 1
        for p, q in itertools.product(s, r):
            binaries.append(f"x_{p}_{q}")
            pair_terms[cluster_of(p), cluster_of(q)].append(f"x_{p}_{q}")
    n = add_partner_rows(lines, pair_terms, binaries, p_max, g_max, n)
    n = add_cover_cuts(lines, blocks(), pair_terms, g_max, n)
    finish_lp(path, lines, [], [], binaries)
    return len(binaries) - 1 - len(pair_terms), len(pair_terms), n


def add_partner_rows(lines, pair_terms, binaries, p_max, g_max, n):
    """sum over a cluster pair's sends <= G u[A, B]; at most P u per
    cluster, sending and receiving."""
    outs = collections.defaultdict(list)
    ins = collections.defaultdict(list)
    for (a, b), vs in pair_terms.items():
        u = f"u_{a}_{b}"
        binaries.append(u)
        outs[a].append(u)
        ins[b].append(u)
        lines.append(f" g{n}: " + " + ".join(vs) + f" - {g_max} {u} <= 0")
        n += 1
    for a, us in outs.items():
        lines.append(f" po{n}: " + " + ".join(us) + f" <= {p_max}")
        n += 1
    for b, us in ins.items():
        lines.append(f" pi{n}: " + " + ".join(us) + f" <= {p_max}")
        n += 1
    return n


def add_cover_cuts(lines, bl, pair_terms, g_max, n):
    """Valid cuts that tighten the relaxation: the senders a cluster A
    holds of a set F of blocks can only go into the clusters that hold
    receivers of F, so A needs ceil(senders / G) partners among those; and
    a cluster B's receivers of F need ceil(receivers / G) partners among
    the clusters holding senders of F. F runs over all sets of blocks of
    one family (a3, a7) or more of A's (B's) families. Implied by the
    model's integer points; they only help CBC prove or find."""
    fam = [(i // 12, i % 6) for i in range(len(bl))]  # (a3, a7) of block i
    for send in (True, False):
        here = collections.defaultdict(collections.Counter)
        there = collections.defaultdict(set)
        for i, (s, r) in enumerate(bl):
            mine, theirs = (s, r) if send else (r, s)
            for p in mine:
                here[cluster_of(p)][fam[i]] += 1
            there[fam[i]] |= {cluster_of(q) for q in theirs}
        for x, fams in here.items():
            keys = sorted(fams)
            for k in range(1, len(keys) + 1):
                for sub in itertools.combinations(keys, k):
                    need = -(-sum(fams[f] for f in sub) // g_max)
                    if need < 2:
                        continue
                    ys = sorted(set().union(*(there[f] for f in sub)))
                    us = [f"u_{x}_{y}" if send else f"u_{y}_{x}" for y in ys]
                    us = [u for u in us if tuple(map(int, u.split("_")[1:]))
                          in pair_terms]
                    lines.append(f" cc{n}: " + " + ".join(us) + f" >= {need}")
                    n += 1
    return n


def finish_lp(path, lines, bounds, generals, binaries):
    lines.append(" fix: dummy = 0")
    lines.append("Bounds")
    lines += bounds
    lines.append("General")
    lines += [" " + v for v in generals]
    lines.append("Binary")
    lines += [" " + v for v in binaries]
    lines.append("End")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def realize(sol_text):
    """A round from a CBC solution of either model: the senders of block b
    in cluster A are paired off with its free receivers in the clusters B
    that m[b, A, B] names (any pairing is one; the blocks are complete
    bipartite)."""
    vals = {}
    for line in sol_text.splitlines()[1:]:
        f = line.split()
        if len(f) >= 3 and (f[1].startswith("m_") or f[1].startswith("x_")):
            vals[f[1]] = round(float(f[2]))
    dest = {}
    for i, (s, r) in enumerate(blocks()):
        if any(k.startswith("x_") for k in vals):
            for p, q in itertools.product(s, r):
                if vals.get(f"x_{p}_{q}", 0):
                    dest[p] = q
            continue
        free = collections.defaultdict(list)
        for q in r:
            free[cluster_of(q)].append(q)
        for p in s:
            a = cluster_of(p)
            for b in sorted(free):
                if vals.get(f"m_{i}_{a}_{b}", 0) > 0 and free[b]:
                    vals[f"m_{i}_{a}_{b}"] -= 1
                    dest[p] = free[b].pop()
                    break
    # one perfect matching of every block
    assert sorted(dest) == sorted(p for s, _ in blocks() for p in s)
    assert sorted(dest.values()) == sorted(dest)
    for s, r in blocks():
        assert sorted(dest[p] for p in s) == sorted(r)
    return dest


def single(p_max, g_max, secs, pe=False, keep=None):
    d = tempfile.mkdtemp(prefix="random5_")
    lp = os.path.join(d, "round.lp")
    sol = os.path.join(d, "round.sol")
    ints, bins, rows = (write_pe_lp if pe else write_lp)(lp, p_max, g_max)
    print(f"P <= {p_max}, G <= {g_max} ({round_cost(p_max, g_max)} ticks),"
          f" {'PE' if pe else 'cluster'} model: {ints} integer m or x,"
          f" {bins} binary u, {rows} rows", flush=True)
    start = time.time()
    run = subprocess.run(["cbc", lp, "sec", str(secs), "solve",
                          "solution", sol], capture_output=True, text=True)
    took = time.time() - start
    status = [l for l in run.stdout.splitlines()
              if re.search(r"Result|infeasible|Infeasible|Optimal|"
                           r"Enumerated|Total time|Stopped", l)]
    for l in status:
        print("  cbc:", l.strip())
    print(f"  wall {took:.1f} s", flush=True)
    if keep:
        with open(keep, "w") as f:
            f.write(run.stdout)
    text = open(sol).read() if os.path.exists(sol) else ""
    head = text.split("\n", 1)[0]
    if head.startswith("Optimal") or "Stopped on time - objective" in head:
        dest = realize(text)
        print("  realized round, plain/clustered ticks, P, G:", price(dest))
        if os.environ.get("RANDOM5_ROUNDS"):
            # for `random5_dump price`: the simulator's ticks of the round
            with open(os.environ["RANDOM5_ROUNDS"], "a") as f:
                f.write(" ".join(str(dest[p]) for p in range(648)) + "\n")
    return head, text


def lp_rows(path):
    """The rows of an LP file written above: (terms, sense, rhs), terms a
    list of (coefficient, variable)."""
    rows, on = [], False
    for line in open(path):
        line = line.strip()
        if line in ("Subject To", "Bounds"):
            on = line == "Subject To"
            continue
        if not on or ":" not in line:
            continue
        expr = line.split(":", 1)[1].split()
        sense, rhs = expr[-2], int(expr[-1])
        terms, sign, coef = [], 1, 1
        for tok in expr[:-2]:
            if tok in "+-":
                sign = -1 if tok == "-" else 1
            elif tok.isdigit():
                coef = int(tok)
            else:
                terms.append((sign * coef, tok))
                sign, coef = 1, 1
        rows.append((terms, sense, rhs))
    return rows


def model_point(dest):
    """The model's variables at a round: m[b, A, B], x[p, q] and u[A, B]."""
    v = collections.Counter()
    for i, (s, _) in enumerate(blocks()):
        for p in s:
            a, b = cluster_of(p), cluster_of(dest[p])
            v[f"m_{i}_{a}_{b}"] += 1
            v[f"x_{p}_{dest[p]}"] = 1
            v[f"u_{a}_{b}"] = 1
    return v


def selftest(count):
    """Every row of both models (cuts included) holds at real rounds, at
    their own P and G: function 6.1's 18 and `count` random ones (a random
    perfect matching per block); a round is feasible at (P, G) exactly
    when it is at most that, so the models cut off no real round."""
    import random
    rng = random.Random(5)
    rounds = [order_61(k) for k in range(BASE)]
    for _ in range(count):
        dest = {}
        for s, r in blocks():
            r = r[:]
            rng.shuffle(r)
            dest.update(zip(s, r))
        rounds.append(dest)
    d = tempfile.mkdtemp(prefix="random5_")
    for dest in rounds:
        _, _, pp, gg = price(dest)
        v = model_point(dest)
        for write, name in ((write_lp, "cluster"), (write_pe_lp, "pe")):
            for p_max, g_max, ok in ((pp, gg, True), (pp - 1, gg, False),
                                     (pp, gg - 1, False)):
                path = os.path.join(d, name + ".lp")
                write(path, p_max, g_max)
                bad = [row for row in lp_rows(path)
                       if not {"<=": lambda a, b: a <= b,
                               ">=": lambda a, b: a >= b,
                               "=": lambda a, b: a == b}[row[1]](
                                   sum(c * v[x] for c, x in row[0]), row[2])]
                assert (not bad) == ok, (name, p_max, g_max, bad[:3])
    print(f"{len(rounds)} rounds: every row holds at (P, G), some row "
          "fails at (P - 1, G) and (P, G - 1)")


def local(p_max, g_max):
    """A relaxation: each cluster alone, sending and then receiving, with
    the rest of the machine free. A cluster that cannot place its 16
    values within (P, G) this way cannot in any round. Returns the clusters
    that fail, per side."""
    bad = {}
    d = tempfile.mkdtemp(prefix="random5_")
    for send in (True, False):
        per = collections.defaultdict(collections.Counter)
        other = collections.defaultdict(collections.Counter)
        for i, (s, r) in enumerate(blocks()):
            mine, theirs = (s, r) if send else (r, s)
            for p in mine:
                per[cluster_of(p)][i] += 1
            for q in theirs:
                other[i][cluster_of(q)] += 1
        bad[send] = []
        for x, dem in sorted(per.items()):
            lines = ["Minimize", " obj: 0 dummy", "Subject To"]
            bounds, generals = [], []
            by = collections.defaultdict(list)
            for b, n in dem.items():
                vs = []
                for y, k in other[b].items():
                    v = f"m_{b}_{y}"
                    vs.append(v)
                    by[y].append(v)
                    generals.append(v)
                    bounds.append(f" 0 <= {v} <= {min(k, n, g_max)}")
                lines.append(" " + " + ".join(vs) + f" = {n}")
            for y, vs in by.items():
                lines.append(" " + " + ".join(vs) + f" - {g_max} u_{y} <= 0")
            lines.append(" " + " + ".join(f"u_{y}" for y in by)
                         + f" <= {p_max}")
            path = os.path.join(d, "local.lp")
            finish_lp(path, lines, bounds, generals,
                      ["dummy"] + [f"u_{y}" for y in by])
            out = subprocess.run(["cbc", path, "solve"], capture_output=True,
                                 text=True).stdout
            if "infeasible" in out.lower():
                bad[send].append(x)
    print(f"P <= {p_max}, G <= {g_max} ({round_cost(p_max, g_max)} ticks),"
          f" clusters alone: sending fails in {bad[True]},"
          f" receiving in {bad[False]}")
    return bad


def frontier(secs):
    most, pairs = frontier_pairs()
    print(f"a round must cost <= {most} ticks; maximal (P, G): {pairs}")
    for p, g in pairs:
        if p * g < 16:
            print(f"P <= {p}, G <= {g}: infeasible by counting "
                  f"({p} x {g} < 16 senders of a full cluster)")
            continue
        head, _ = single(p, g, secs)
        print("  solution:", head, flush=True)


# Partial rounds (branch random5p): rounds in which only some PEs send.
# A round is then a partial matching of every block; `price` holds as it is
# (routerTicks counts active PEs only). The search below builds such rounds
# greedily; `mixed_lp` is a relaxation that bounds every such schedule.

PARTIAL_TYPES = ((4, 2), (2, 4), (4, 4), (8, 2), (3, 4), (6, 3))


def remaining_edges():
    """(A, B) -> the (sender, receiver) pairs still to send between them."""
    rem = collections.defaultdict(set)
    for s, r in blocks():
        for p in s:
            for q in r:
                rem[cluster_of(p), cluster_of(q)].add((p, q))
    return rem


def pair_openings(edges, g):
    """Connections a cluster pair needs with groups of at most g: every
    sender and receiver is in at most one of them."""
    return max(-(-len(edges) // g),
               max(collections.Counter(p for p, _ in edges).values()),
               max(collections.Counter(q for _, q in edges).values()))


def cluster_floors(rem):
    """Per cluster, sending and receiving: the least ticks of its remaining
    connections at one group size (2, 3 or 4) for all; a guide for the
    search, not a bound on mixed groups."""
    out, inn = {}, {}
    for g in (2, 3, 4):
        o, i = collections.Counter(), collections.Counter()
        for (a, b), e in rem.items():
            if e:
                n = pair_openings(e, g)
                o[a] += n
                i[b] += n
        for side, c in ((out, o), (inn, i)):
            for x, n in c.items():
                side[x] = min(side.get(x, 1 << 40), n * round_cost(1, g))
    return out, inn


def build_round(rem, p_max, g_max, rng, wout, win, noise, need):
    """One partial round with at most p_max partners and groups of at most
    g_max: cluster pairs in order of their clusters' weight (jittered; then
    the pair's connections still needed), full groups first, then what is
    left; in a pair, the senders and receivers with the most values left
    between the two go first."""
    used_s, used_r, dest = set(), set(), {}
    outc, inc = collections.Counter(), collections.Counter()
    pairs = [k for k, e in rem.items() if e]
    key = {k: -(wout.get(k[0], 0) + win.get(k[1], 0))
           * (1 + noise * rng.random()) - 0.01 * need[k] for k in pairs}
    pairs.sort(key=key.get)
    opened = set()
    for full in (True, False):
        for k in pairs:
            a, b = k
            if k in opened or outc[a] >= p_max or inc[b] >= p_max:
                continue
            es = [e for e in rem[k] if e[0] not in used_s
                  and e[1] not in used_r]
            if not es:
                continue
            ns = collections.Counter(p for p, _ in rem[k])
            nr = collections.Counter(q for _, q in rem[k])
            rng.shuffle(es)
            es.sort(key=lambda e: -(ns[e[0]] + nr[e[1]]))
            chosen, cs, cr = [], set(), set()
            for p, q in es:
                if p not in cs and q not in cr:
                    chosen.append((p, q))
                    cs.add(p)
                    cr.add(q)
                    if len(chosen) == g_max:
                        break
            if full and len(chosen) < min(g_max, len(rem[k])):
                continue
            opened.add(k)
            outc[a] += 1
            inc[b] += 1
            for p, q in chosen:
                dest[p] = q
                used_s.add(p)
                used_r.add(q)
    return dest


def partial_search(seed, tries=2, tau=100.0, noise=0.3, types=PARTIAL_TYPES,
                   log=None):
    """Greedy partial rounds until every value is sent: each round the
    candidate (one per type and try) of least ticks per weighted value,
    a cluster's weight exp((floor - busiest floor) / tau)."""
    import math
    import random
    rng = random.Random(seed)
    rem = remaining_edges()
    rounds = []
    while any(rem.values()):
        out, inn = cluster_floors(rem)
        top = max(max(out.values()), max(inn.values()))
        wout = {x: math.exp((v - top) / tau) for x, v in out.items()}
        win = {x: math.exp((v - top) / tau) for x, v in inn.items()}
        best = None
        for p_max, g_max in types:
            need = {k: pair_openings(e, min(g_max, 4))
                    for k, e in rem.items() if e}
            for t in range(tries):
                dest = build_round(rem, p_max, g_max, rng, wout, win,
                                   noise if t else 0, need)
                ticks = min(price(dest)[:2])
                w = sum(wout.get(cluster_of(p), 0) + win.get(cluster_of(q), 0)
                        for p, q in dest.items())
                if best is None or ticks * best[1] < best[0] * w:
                    best = (ticks, w, dest)
        dest = best[2]
        for p, q in dest.items():
            rem[cluster_of(p), cluster_of(q)].discard((p, q))
        rounds.append(dest)
        if log:
            print(f"  round {len(rounds)}: {price(dest)} floor {top}",
                  file=log, flush=True)
    return rounds


def check_schedule(rounds):
    """Every (sender, receiver) pair of every block exactly once, every PE
    sending and receiving at most once a round. Returns the sends' ticks
    (each round the cheaper of plain and clustered, as routerSendCheaper)."""
    seen = collections.Counter()
    for dest in rounds:
        assert len(set(dest.values())) == len(dest)
        seen.update(dest.items())
    want = {(p, q) for s, r in blocks() for p in s for q in r}
    assert set(seen) == want and max(seen.values()) == 1
    return sum(min(price(d)[:2]) for d in rounds)


def schedule_ticks(rounds_count, bits=16):
    """Loads and stores as today plus the schedule table read with 8-byte
    table loads: the PE's digits and, per round, `bits` bits (an active
    bit, the 5-bit slot and the 10-bit destination: 16; with the
    receiver's 5-bit slot too: 21)."""
    per = 64 // bits
    return MEMORY + 146 * (1 + -(-rounds_count // per))


def partial(seed, out=None):
    rounds = partial_search(seed, log=sys.stdout)
    sends = check_schedule(rounds)
    for bits in (16, 21):
        total = sends + schedule_ticks(len(rounds), bits)
        print(f"{bits} bits a round: {len(rounds)} rounds, sends {sends},"
              f" loads, stores and schedule"
              f" {schedule_ticks(len(rounds), bits)}, total {total},"
              f" bound / total {18368 / total:.4f}")
    if out:
        # for `random5_dump price`: one line a round, -1 where no send
        with open(out, "w") as f:
            for dest in rounds:
                f.write(" ".join(str(dest.get(p, -1)) for p in range(648))
                        + "\n")
    return rounds


def read_rounds(path):
    rounds = []
    for line in open(path):
        v = [int(x) for x in line.split()]
        rounds.append({p: q for p, q in enumerate(v) if q >= 0})
    return rounds


def verify(path, sim):
    """A rounds file against the simulator's prices of it (the output of
    `random5_dump price < path`): the same ticks round by round."""
    rounds = read_rounds(path)
    sends = check_schedule(rounds)
    got = [tuple(int(x) for x in l.split()[1::2]) for l in open(sim)]
    assert len(got) == len(rounds)
    for k, dest in enumerate(rounds):
        assert price(dest)[:2] == got[k], (k, price(dest), got[k])
    print(f"{len(rounds)} rounds, every value once; the simulator's ticks"
          f" equal the model's round by round; sends {sends}"
          f" = {sum(min(g) for g in got)}")


def mixed_lp(path, g_top=10, integer=False):
    """A relaxation of every schedule, partial rounds or not. Group the
    clustered rounds by their G: S_G = the sum of their P, so they cost
    (42 + 81 G) S_G, and a cluster opens at most S_G connections in them,
    sending and receiving; plain rounds cost 123 K each and a cluster sends
    (receives) at most K values in them: L = the sum of their K. Per
    cluster pair, x_G connections in G-rounds carry at most
    min(G, its senders, its receivers) values each, plain rounds z; the
    pair needs as many rounds as its busiest PE has values (a sender has 2
    for each cluster it sends to). Any schedule gives a point at its own
    price, so the optimum is a lower bound of the sends."""
    kp = collections.defaultdict(collections.Counter)
    kq = collections.defaultdict(collections.Counter)
    for s, r in blocks():
        for p in s:
            for q in r:
                k = cluster_of(p), cluster_of(q)
                kp[k][p] += 1
                kq[k][q] += 1
    gs = range(1, g_top + 1)
    lines = ["Minimize", " obj: " + " + ".join(
        f"{round_cost(1, g)} S{g}" for g in gs) + f" + {round_cost(1, 1)} L",
        "Subject To"]
    ints = [f"S{g}" for g in gs] + ["L"]
    per = collections.defaultdict(list)
    n = 0
    for (a, b) in kp:
        t = sum(kp[a, b].values())
        cap = min(len(kp[a, b]), len(kq[a, b]))
        most = max(max(kp[a, b].values()), max(kq[a, b].values()))
        z = f"z_{a}_{b}"
        xs, ys = [], []
        for g in gs:
            x, y = f"x{g}_{a}_{b}", f"y{g}_{a}_{b}"
            xs.append(x)
            ys.append(y)
            lines.append(f" c{n}: {y} - {min(g, cap)} {x} <= 0")
            n += 1
            per["o", a, g].append(x)
            per["i", b, g].append(x)
        per["o", a, "L"].append(z)
        per["i", b, "L"].append(z)
        lines.append(f" c{n}: " + " + ".join(ys) + f" + {z} = {t}")
        lines.append(f" c{n + 1}: " + " + ".join(xs) + f" + {z} >= {most}")
        n += 2
        ints += xs + ys + [z]
    for (_, _, g), vs in per.items():
        lim = "L" if g == "L" else f"S{g}"
        lines.append(f" c{n}: " + " + ".join(vs) + f" - {lim} <= 0")
        n += 1
    lines.append("General" if integer else "End")
    if integer:
        lines += [" " + v for v in ints] + ["End"]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def mixed(secs, integer):
    d = tempfile.mkdtemp(prefix="random5_")
    lp, sol = os.path.join(d, "mixed.lp"), os.path.join(d, "mixed.sol")
    mixed_lp(lp, integer=integer)
    run = subprocess.run(["cbc", lp, "sec", str(secs), "solve", "solution",
                          sol], capture_output=True, text=True)
    for l in run.stdout.splitlines():
        if re.search(r"Result|Objective|objective|Total time|Gap", l):
            print("  cbc:", l.strip())
    for line in open(sol):
        f = line.split()
        if len(f) >= 3 and re.fullmatch(r"S\d+|L", f[1]):
            print(f"  {f[1]} = {f[2]}")


if __name__ == "__main__":
    cmd = sys.argv[1] if len(sys.argv) > 1 else "check"
    if cmd == "check":
        check(sys.argv[2] if len(sys.argv) > 2 else None)
    elif cmd in ("single", "single-pe"):
        head, _ = single(int(sys.argv[2]), int(sys.argv[3]),
                         int(sys.argv[4]) if len(sys.argv) > 4 else 600,
                         pe=cmd == "single-pe")
        print("  solution:", head)
    elif cmd == "local":
        local(int(sys.argv[2]), int(sys.argv[3]))
    elif cmd == "selftest":
        selftest(int(sys.argv[2]) if len(sys.argv) > 2 else 20)
    elif cmd == "frontier":
        frontier(int(sys.argv[2]) if len(sys.argv) > 2 else 600)
    elif cmd == "partial":
        partial(int(sys.argv[2]), sys.argv[3] if len(sys.argv) > 3 else None)
    elif cmd == "verify":
        verify(sys.argv[2], sys.argv[3])
    elif cmd in ("mixed", "mixed-int"):
        mixed(int(sys.argv[2]) if len(sys.argv) > 2 else 600,
              cmd == "mixed-int")
    else:
        sys.exit(__doc__)
