# fortran/gen.awk -- the program of fortran/gen.sh: reads the table
# fortran/routines.def, checks it against the C prototypes and #defines of
# include/gcuba.h (and of the other headers the table names), and with
# mode=write writes gcuba.fi, gcuba.f90 and fortran.inc into outdir.
#   awk -v srcdir=DIR -v outdir=DIR -v mode=check|write -f gen.awk
# POSIX awk only (no gawk extensions); everything happens in BEGIN.
# This file is part of gcuba.

BEGIN {
  TABLE = "fortran/routines.def"
  GCUBA_H = "include/gcuba.h"
  errors = nfail = 0
  read_table(srcdir "/" TABLE)
  if (!errors) check()
  if (!errors && mode == "write") {
    write_fi(outdir "/gcuba.fi")
    write_f90(outdir "/gcuba.f90", srcdir "/fortran/gcuba.f90.in")
    write_inc(outdir "/fortran.inc")
  }
  if (errors) close("cat 1>&2")
  exit errors ? 1 : 0
}

function err(msg) {
  print "gen.sh: " msg | "cat 1>&2"
  errors++
}

function trim(s) {
  sub(/^[ \t\n]+/, "", s)
  sub(/[ \t\n]+$/, "", s)
  return s
}

# ---------------------------------------------------------------- table

# it_*[i]: the table's items in order (it_type: fi, fi-fail, no-fi, omit,
# integrator, routine); a_*[i, j]: argument j of routine i; listed[name]:
# every name the table gives.  `! text' lines go to it_cmt of the next
# item.
function read_table(file,   line, more, t, n, i, cur, cmt, ln, k) {
  nit = 0
  cur = 0
  cmt = ""
  ln = 0
  if ((getline line < file) < 0) {
    err("cannot read " file)
    return
  }
  do {
    ln++
    while (line ~ /\\$/ && (getline more < file) > 0) {
      ln++
      line = substr(line, 1, length(line) - 1) " " more
    }
    if (line ~ /^[ \t]*#/ || line ~ /^[ \t]*$/) continue
    if (line ~ /^[ \t]*!/) {
      cmt = cmt trim(line) "\n"
      continue
    }
    sub(/[ \t]#.*$/, "", line)
    n = split(line, t, " ")
    if (cur) {
      if (t[1] == "end" && n == 1) {
        cur = 0
        continue
      }
      k = ++it_na[cur]
      a_nm[cur, k] = t[1]
      a_k[cur, k] = t[2]
      a_opt[cur, k] = 0
      a_anyr[cur, k] = 0
      if (n < 2 || !valid_kind(t[2]))
        err(TABLE ":" ln ": `" t[2] "' is not an argument kind")
      for (i = 3; i <= n; i++) {
        if (t[i] == "optional") a_opt[cur, k] = 1
        else if (t[i] == "anyrank") a_anyr[cur, k] = 1
        else err(TABLE ":" ln ": unknown option `" t[i] "'")
      }
      if (a_anyr[cur, k] && !is_array(a_k[cur, k]))
        err(TABLE ":" ln ": anyrank is for arrays")
      continue
    }
    if (t[1] == "fi" && nit && it_type[nit] == "fi" && cmt == "") {
      # a group of constants goes on over several lines
      for (i = 2; i <= n; i++) {
        it_names[nit] = it_names[nit] " " t[i]
        if (t[i] in listed) err(TABLE ":" ln ": " t[i] " twice")
        listed[t[i]] = t[1]
      }
      continue
    }
    nit++
    it_line[nit] = ln
    it_cmt[nit] = cmt
    cmt = ""
    it_type[nit] = t[1]
    it_names[nit] = it_c[nit] = it_ll[nit] = it_ret[nit] = it_res[nit] = ""
    it_hdr[nit] = GCUBA_H
    it_f77in[nit] = ""
    it_na[nit] = it_bind[nit] = it_nof77[nit] = nstr[nit] = 0
    if (t[1] == "fi" || t[1] == "no-fi" || t[1] == "omit") {
      if (n < 2) err(TABLE ":" ln ": " t[1] " without names")
      it_names[nit] = ""
      for (i = 2; i <= n; i++) {
        it_names[nit] = it_names[nit] (i > 2 ? " " : "") t[i]
        if (t[i] in listed) err(TABLE ":" ln ": " t[i] " twice")
        listed[t[i]] = t[1]
      }
    } else if (t[1] == "fi-fail") {
      if (n != 1) err(TABLE ":" ln ": fi-fail takes no names")
    } else if (t[1] == "integrator") {
      if (n != 3) err(TABLE ":" ln ": integrator GNAME LLNAME")
      it_c[nit] = t[2]
      it_ll[nit] = t[3]
      cur = nit
    } else if (t[1] == "routine") {
      it_c[nit] = t[2]
      for (i = 3; i <= n; i++) {
        if (t[i] == "returns" && (t[i + 1] == "int" || t[i + 1] == "string") &&
            i + 2 <= n) {
          it_ret[nit] = t[i + 1]
          it_res[nit] = t[i + 2]
          i += 2
        } else if (t[i] == "bind") it_bind[nit] = 1
        else if (t[i] == "nof77") it_nof77[nit] = 1
        else if (t[i] == "header" && i < n) it_hdr[nit] = t[++i]
        else if (t[i] == "f77in" && i < n) it_f77in[nit] = t[++i]
        else err(TABLE ":" ln ": unknown option `" t[i] "'")
      }
      cur = nit
    } else {
      err(TABLE ":" ln ": unknown line `" t[1] "'")
      nit--
      continue
    }
    if (it_type[nit] == "integrator" || it_type[nit] == "routine") {
      for (i = 2; i <= (it_type[nit] == "integrator" ? 3 : 2); i++) {
        if (t[i] in listed) err(TABLE ":" ln ": " t[i] " twice")
        listed[t[i]] = t[1]
      }
    }
  } while ((getline line < file) > 0)
  close(file)
  if (cur) err(TABLE ": routine " it_c[cur] " has no `end'")
  if (cmt != "") err(TABLE ": `!' comments at the end, before no item")
}

function valid_kind(k) {
  return k ~ /^(int|count|real|size|int-ref|integrand|any|string)$/ ||
    k ~ /^(hook|comm|xgiven|peakfinder)$/ ||
    k ~ /^(int-out|count-out)(\[\])?$/ || k == "real-out[]"
}

# the kinds that are arrays: the outputs x[], and xgiven
function is_array(k) {
  return k ~ /\[\]$/ || k == "xgiven"
}

# ---------------------------------------------------------- C headers

# read_c(file): the prototypes of a C file into p_ret[file, name],
# p_n[file, name], p_k[file, name, j], p_nm[file, name, j] (kinds as
# ckind gives them) and p_list[file]; its object-like #defines with a
# value into d_val[file, name] and d_list[file]; the X(value, NAME, ...)
# entries of GCUBA_FAIL_LIST into fail_nm[1..nfail], fail_val[].
function read_c(file,   line, more, text, i, j, rest, lines, n, ctext, name,
                pieces, np, p, head, ret, params) {
  if (file in c_read) return c_read[file]
  text = ""
  if ((getline line < file) < 0) {
    err("cannot read " file)
    return c_read[file] = 0
  }
  do {
    while (line ~ /\\$/ && (getline more < file) > 0)
      line = substr(line, 1, length(line) - 1) " " more
    text = text line "\n"
  } while ((getline line < file) > 0)
  close(file)
  while ((i = index(text, "/*")) > 0) {
    rest = substr(text, i + 2)
    j = index(rest, "*/")
    if (j == 0) {
      err(file ": unterminated comment")
      break
    }
    text = substr(text, 1, i - 1) " " substr(rest, j + 2)
  }
  n = split(text, lines, "\n")
  ctext = ""
  d_list[file] = ""
  p_list[file] = ""
  for (i = 1; i <= n; i++) {
    line = lines[i]
    if (line !~ /^[ \t]*#/) {
      ctext = ctext " " line
      continue
    }
    if (!match(line, /^[ \t]*#[ \t]*define[ \t]+[A-Za-z_][A-Za-z0-9_]*/))
      continue
    name = substr(line, RSTART, RLENGTH)
    sub(/^[ \t]*#[ \t]*define[ \t]+/, "", name)
    rest = substr(line, RSTART + RLENGTH)
    if (rest ~ /^\(/) {
      if (name == "GCUBA_FAIL_LIST") read_fail_list(rest)
      continue
    }
    rest = trim(rest)
    if (rest == "" || (file SUBSEP name) in d_val) continue
    d_val[file, name] = rest
    d_list[file] = d_list[file] " " name
  }
  np = split(ctext, pieces, ";")
  for (i = 1; i <= np; i++) {
    p = pieces[i]
    while (match(p, /[{}]/)) p = substr(p, RSTART + 1)
    gsub(/[ \t\n]+/, " ", p)
    p = trim(p)
    if (p !~ /\)$/ || (j = index(p, "(")) == 0) continue
    head = trim(substr(p, 1, j - 1))
    params = substr(p, j + 1, length(p) - j - 1)
    if (head !~ /^[A-Za-z_][A-Za-z0-9_ *]*[ *][A-Za-z_][A-Za-z0-9_]*$/)
      continue
    match(head, /[A-Za-z_][A-Za-z0-9_]*$/)
    name = substr(head, RSTART)
    ret = substr(head, 1, RSTART - 1)
    if (ret ~ /^(typedef|return|else|case|goto|sizeof|do)[ *]/) continue
    if ((file SUBSEP name) in p_ret) continue
    p_ret[file, name] = ckind(ret " x")
    p_list[file] = p_list[file] " " name
    split_params(file, name, params)
  }
  return c_read[file] = 1
}

function read_fail_list(s,   e, q) {
  while (match(s, /X\([ \t]*-?[0-9]+[ \t]*,[ \t]*[A-Za-z_][A-Za-z0-9_]*/)) {
    e = substr(s, RSTART + 2, RLENGTH - 2)
    s = substr(s, RSTART + RLENGTH)
    split(e, q, ",")
    nfail++
    fail_val[nfail] = trim(q[1]) + 0
    fail_nm[nfail] = trim(q[2])
  }
}

# the parameters of a prototype, split at the commas outside parentheses
function split_params(file, name, s,   n, depth, i, c, cur) {
  n = 0
  s = trim(s)
  if (s == "void" || s == "") {
    p_n[file, name] = 0
    return
  }
  depth = 0
  cur = ""
  for (i = 1; i <= length(s); i++) {
    c = substr(s, i, 1)
    if (c == "(") depth++
    else if (c == ")") depth--
    if (c == "," && depth == 0) {
      n++
      p_k[file, name, n] = ckind(cur)
      p_nm[file, name, n] = CK_NAME
      cur = ""
    } else cur = cur c
  }
  n++
  p_k[file, name, n] = ckind(cur)
  p_nm[file, name, n] = CK_NAME
  p_n[file, name] = n
}

# The kind of a C declaration `TYPE NAME': the base type (int, llong for
# long long, double for gcubareal too, size_t, gintegrand_t, char, void,
# ...), a `*' for each level of pointer or [], "const " in front for a
# pointer to const; "fnptr" for a pointer to a function.  Its name goes
# to CK_NAME.
function ckind(p,   t, name, stars, arr, cst, i, k) {
  p = trim(p)
  CK_NAME = ""
  if (match(p, /\( *\* *[A-Za-z_][A-Za-z0-9_]* *\) *\(/)) {
    t = substr(p, RSTART, RLENGTH)
    gsub(/[(* )]/, "", t)
    CK_NAME = t
    return "fnptr"
  }
  arr = 0
  if (p ~ /\[[A-Za-z0-9_ ]*\]$/) {
    sub(/ *\[[A-Za-z0-9_ ]*\]$/, "", p)
    arr = 1
  }
  t = p
  name = ""
  if (match(p, /[A-Za-z_][A-Za-z0-9_]*$/)) {
    name = substr(p, RSTART)
    t = substr(p, 1, RSTART - 1)
    if (t ~ /^ *((const|unsigned|signed|long|short|struct) *)*$/) {
      t = p
      name = ""
    }
  }
  CK_NAME = name
  i = index(t, "*")
  cst = (" " (i ? substr(t, 1, i - 1) : t) " ") ~ / const /
  t = " " t " "
  stars = gsub(/\*/, " ", t) + arr
  gsub(/ (const|static|extern|inline) /, " ", t)
  gsub(/ (const|static|extern|inline) /, " ", t)
  gsub(/ +/, " ", t)
  t = trim(t)
  if (t ~ /^(signed )?long long( int)?$/) t = "llong"
  if (t == "gcubareal") t = "double"
  k = t
  for (i = 0; i < stars; i++) k = k "*"
  if (stars && cst) k = "const " k
  return k
}

# ---------------------------------------------------------------- check

# the kind a table argument has in the C prototype (ll: the LLNAME form)
function hkind(k, ll) {
  if (k == "int") return "int"
  if (k == "count") return ll ? "llong" : "int"
  if (k == "real") return "double"
  if (k == "size") return "size_t"
  if (k == "int-ref") return "const int*"
  if (k == "integrand") return "gintegrand_t"
  if (k == "any") return "void*"
  if (k == "string") return "const char*"
  if (k == "hook") return "fnptr"
  if (k == "comm") return "MPI_Comm"
  if (k == "xgiven") return "double*"
  if (k == "peakfinder") return "gcuba_peakfinder_t"
  if (k ~ /^int-out/) return "int*"
  if (k ~ /^count-out/) return ll ? "llong*" : "int*"
  return "double*"
}

function hret(r) {
  return r == "" ? "void" : r == "int" ? "int" : "const char*"
}

# routine i (form ll) against the C prototype `name' in file; what
# the table says against what the file has
function check_proto(i, ll, name, file, wrapper,   j, want, n) {
  if (!read_c(srcdir "/" file)) return
  file = srcdir "/" file
  if (!((file SUBSEP name) in p_ret)) {
    err(TABLE ":" it_line[i] ": " name ": no prototype in " short(file))
    return
  }
  want = wrapper ? wret(i) : hret(it_ret[i])
  if (p_ret[file, name] != want)
    err(TABLE ":" it_line[i] ": " name " returns " want " in the table, " \
        p_ret[file, name] " in " short(file))
  n = wrapper ? wargs(i, ll, 0) : it_na[i]
  if (p_n[file, name] != n) {
    err(TABLE ":" it_line[i] ": " name " has " n " arguments in the table, " \
        p_n[file, name] " in " short(file))
    return
  }
  for (j = 1; j <= n; j++) {
    want = wrapper ? ckind(w_decl[j]) : hkind(a_k[i, j], ll)
    if (p_k[file, name, j] != want ||
        (!wrapper && p_nm[file, name, j] != a_nm[i, j]))
      err(TABLE ":" it_line[i] ": " name ": argument " j " is " \
          (wrapper ? "" : a_nm[i, j] " ") want " in the table, " \
          p_nm[file, name, j] " " p_k[file, name, j] " in " short(file))
  }
}

function short(file) {
  return substr(file, 1, length(srcdir) + 1) == srcdir "/" ? \
    substr(file, length(srcdir) + 2) : file
}

function check(   i, j, n, w, f, hdrs, nm, hv) {
  read_c(srcdir "/" GCUBA_H)
  hdrs[GCUBA_H] = 1
  for (i = 1; i <= nit; i++) {
    if (it_type[i] == "integrator" || it_type[i] == "routine") {
      check_routine(i)
      hdrs[it_hdr[i]] = 1
      check_proto(i, 0, it_c[i], it_hdr[i], 0)
      if (it_type[i] == "integrator") check_proto(i, 1, it_ll[i], it_hdr[i], 0)
      if (it_f77in[i] != "") check_proto(i, 0, it_c[i] "_", it_f77in[i], 1)
    }
  }
  # every routine of the headers is in the table, every #define of
  # theirs in fi or no-fi; every name the table lists exists
  for (f in hdrs) {
    if (!read_c(srcdir "/" f)) continue
    n = split(p_list[srcdir "/" f], w, " ")
    for (j = 1; j <= n; j++) {
      if (!(w[j] in listed))
        err(short(srcdir "/" f) ": " w[j] " is neither in " TABLE \
            " nor omitted there")
      hv[w[j]] = 1
    }
    n = split(d_list[srcdir "/" f], w, " ")
    for (j = 1; j <= n; j++) {
      if (w[j] !~ /^GCUBA_/ || w[j] ~ /_$/) continue
      if (!(w[j] in listed))
        err(short(srcdir "/" f) ": #define " w[j] " is neither in a fi " \
            "nor in a no-fi line of " TABLE)
      hv[w[j]] = 1
      d_any[w[j]] = d_val[srcdir "/" f, w[j]]
    }
  }
  for (nm in listed)
    if (!(nm in hv))
      err(TABLE ": " nm " (" listed[nm] ") is not in " GCUBA_H \
          " or the headers the table names")
  for (i = 1; i <= nit; i++) {
    if (it_type[i] == "fi") {
      n = split(it_names[i], w, " ")
      for (j = 1; j <= n; j++)
        if (w[j] in d_any && cval(d_any[w[j]]) == "")
          err(GCUBA_H ": " w[j] " is `" d_any[w[j]] "', not an integer")
    }
    if (it_type[i] == "fi-fail" && nfail == 0)
      err(GCUBA_H ": no GCUBA_FAIL_LIST for fi-fail")
  }
}

# what the generator needs of a routine beyond its kinds
function check_routine(i,   j, s, ig, fl, k) {
  s = TABLE ":" it_line[i] ": " it_c[i] ": "
  ig = fl = 0
  for (j = 1; j <= it_na[i]; j++) {
    k = a_k[i, j]
    if (k == "integrand") ig++
    if (a_nm[i, j] == "fail") fl = 1
    if (k == "string") nstr[i]++
    if (it_type[i] == "routine" &&
        k ~ /^(count|integrand|string|xgiven|peakfinder)/)
      err(s k " is for integrators")
    if (it_type[i] == "integrator" && k ~ /^(int-ref|hook|comm)$/)
      err(s k " is not for integrators")
    if (it_bind[i] && (k ~ /^(any|hook|comm)$/ || is_array(k) || a_opt[i, j]))
      err(s "bind: " k " cannot be passed by value")
  }
  if (it_type[i] == "integrator" && (ig != 1 || !fl || nstr[i] > 1))
    err(s "an integrator takes one integrand, one fail, one string at most")
  if (it_bind[i] && it_ret[i] == "string")
    err(s "bind: no string result")
  if (it_nof77[i] && !it_bind[i])
    err(s "nof77 without bind: Fortran could not call it")
}

# the value of a #define: an integer, or a << b; "" for anything else
function cval(s,   a, v, i) {
  gsub(/[ \t()]/, "", s)
  if (s ~ /^-?[0-9]+$/) v = s + 0
  else if (s ~ /^[0-9]+<<[0-9]+$/) {
    split(s, a, "<<")
    v = a[1] + 0
    for (i = 0; i < a[2] + 0; i++) v *= 2
  } else return ""
  if (v > 2147483647 || v < -2147483648) return ""
  return sprintf("%d", v)
}

# ---------------------------------------------------------------- output

# Lines of at most `width' columns: first, the items of list (separated
# by SUBSEP) joined by ", ", then last; a line breaks after an item's
# comma, ends there with brk, and the next line starts with ind.
function wrap(first, list, last, ind, brk, width,   it, n, i, line, out,
              piece) {
  n = split(list, it, SUBSEP)
  line = first
  out = ""
  if (n == 0) return first last
  for (i = 1; i <= n; i++) {
    piece = it[i] (i < n ? "," : last)
    if (i == 1) line = line piece
    else if (length(line " " piece) + (i < n ? length(brk) : 0) <= width)
      line = line " " piece
    else {
      out = out line brk "\n"
      line = ind piece
    }
  }
  return out line
}

function add(list, item) {
  return list == "" ? item : list SUBSEP item
}

# the table's `!' lines, indented
function comments(c, ind,   l, n, i, out) {
  n = split(c, l, "\n")
  out = ""
  for (i = 1; i < n; i++) out = out ind l[i] "\n"
  return out
}

# text filled into lines of at most width columns, each starting with
# lead
function fill(text, lead, width,   w, n, i, line, out) {
  n = split(text, w, " ")
  out = ""
  line = lead w[1]
  for (i = 2; i <= n; i++) {
    if (length(line) + 1 + length(w[i]) > width) {
      out = out line "\n"
      line = lead w[i]
    } else line = line " " w[i]
  }
  return out line "\n"
}

function banner(what, from) {
  return "! " what " -- generated by fortran/gen.sh: do not edit.\n" \
    fill("Made from " from ": edit those, then run `make fortran-gen'.",
         "! ", 72)
}

# ---- gcuba.fi: fixed and free form alike, so no continuation lines and
# nothing past column 72
function write_fi(out,   i, j, n, w, v, text) {
  printf "%s", banner("fortran/gcuba.fi",
                      "fortran/routines.def and include/gcuba.h") "!\n" > out
  for (i = 1; i <= nit; i++) {
    if (it_type[i] != "fi" && it_type[i] != "fi-fail") continue
    printf "%s", comments(it_cmt[i], "") > out
    if (it_type[i] == "fi") {
      n = split(it_names[i], w, " ")
      for (j = 1; j <= n; j++) v[j] = cval(d_any[w[j]])
    } else {
      n = nfail
      for (j = 1; j <= n; j++) {
        w[j] = fail_nm[j]
        v[j] = fail_val[j]
      }
    }
    text = "      integer"
    for (j = 1; j <= n; j++) {
      if (j > 1 && length(text) + 2 + length(w[j]) > 72) {
        printf "%s\n", text > out
        text = "      integer"
      }
      text = text (text ~ /integer$/ ? " " : ", ") w[j]
    }
    printf "%s\n", text > out
    for (j = 1; j <= n; j++)
      printf "      parameter (%s = %s)\n", w[j], v[j] > out
  }
  close(out)
}

# ---- gcuba.f90: the frame with the interface bodies

# the Fortran declaration of argument j of routine i
function fspec(i, j, ll, desc,   k, io) {
  k = a_k[i, j]
  if (k == "integrand")
    return desc ? "type(gcuba_integrand), intent(in)" : "external"
  if (k == "hook" || k == "peakfinder") return "external"
  if (k == "any") return "type(*), dimension(*)"
  if (k == "string") return "character(len=*), intent(in)"
  io = it_bind[i] && k != "int-ref" ? "value" : "intent(in)"
  if (k ~ /-out/) io = a_anyr[i, j] ? "" : "intent(out)"
  io = io == "" ? "" : ", " io
  sub(/-.*/, "", k)
  if (k == "int" || k == "comm") return "integer(c_int)" io
  if (k == "xgiven") return "real(c_double)" io
  if (k == "count") return "integer(" (ll ? "c_long_long" : "c_int") ")" io
  if (k == "real") return "real(c_double)" io
  return "integer(c_size_t)" io
}

# one interface body: routine i in form ll, for a GCUBA_INTEGRAND object
# with desc, under the Fortran name fname
function body(i, ll, desc, fname,   j, s, args, ns, spec, ents, nac, nacat,
              opt, imp, out, fun, tail, what, n, w, seen) {
  args = ""
  ns = 0
  nac = opt = ""
  nacat = 0
  for (j = 1; j <= it_na[i]; j++) {
    args = add(args, a_nm[i, j])
    s = fspec(i, j, ll, desc)
    if (!(s in seen)) {
      seen[s] = ++ns
      spec[ns] = s
      ents[ns] = ""
    }
    ents[seen[s]] = add(ents[seen[s]],
                        a_nm[i, j] (is_array(a_k[i, j]) ? "(*)" : ""))
    if (a_k[i, j] == "any" || a_anyr[i, j]) {
      nac = add(nac, a_nm[i, j])
      if (!nacat) nacat = seen[s]
    }
    if (a_opt[i, j]) opt = add(opt, a_nm[i, j])
  }
  fun = it_ret[i] == "int"
  if (it_ret[i] == "string") {
    args = add(args, it_res[i])
    spec[++ns] = "character(len=*), intent(out)"
    ents[ns] = it_res[i]
  }
  if (fun) {
    spec[++ns] = "integer(c_int)"
    ents[ns] = it_res[i]
  }
  what = fun ? "function" : "subroutine"
  tail = ")" (fun ? " result(" it_res[i] ")" : "") \
    (it_bind[i] ? " bind(c, name=\"" it_c[i] "\")" : "")
  out = wrap("    " what " " fname "(", args, tail, "        ", " &", 79) "\n"
  imp = ""
  n = split("c_int c_long_long c_double c_size_t gcuba_integrand", w, " ")
  for (j = 1; j <= n; j++)
    for (s = 1; s <= ns; s++)
      if (index(spec[s], "(" w[j] ")")) {
        imp = add(imp, w[j])
        break
      }
  if (imp != "")
    out = out wrap("      import :: ", imp, "", "        ", " &", 79) "\n"
  gsub(SUBSEP, ", ", nac)
  for (s = 1; s <= ns; s++) {
    if (s == nacat) out = out "!GCC$ ATTRIBUTES NO_ARG_CHECK :: " nac "\n"
    out = out wrap("      " spec[s] " :: ", ents[s], "", "        ", " &",
                   79) "\n"
  }
  if (opt != "")
    out = out wrap("      optional :: ", opt, "", "        ", " &", 79) "\n"
  return out "    end " what " " fname "\n"
}

# the counts that are integer*8 in the ll form
function counts(i,   j, s) {
  s = ""
  for (j = 1; j <= it_na[i]; j++)
    if (a_k[i, j] ~ /^count/) s = s (s == "" ? "" : ", ") a_nm[i, j]
  return s
}

function interfaces(   i, out, g, l, first) {
  out = ""
  for (i = 1; i <= nit; i++) {
    if (it_type[i] != "integrator") continue
    g = tolower(it_c[i])
    l = tolower(it_ll[i])
    out = out comments(it_cmt[i], "  ") "  interface " g "\n" \
      body(i, 0, 0, g) body(i, 0, 1, g "_desc") "  end interface " g "\n\n"
    out = out fill(l ": as " g ", with integer*8 " counts(i), "  ! ", 76) \
      "  interface " l "\n" body(i, 1, 0, l) body(i, 1, 1, l "_desc") \
      "  end interface " l "\n\n"
  }
  out = out "  interface\n"
  for (i = 1; i <= nit; i++)
    if (it_type[i] == "routine")
      out = out comments(it_cmt[i], "    ") body(i, 0, 0, it_c[i])
  return out "  end interface\n"
}

function write_f90(out, frame,   line, done) {
  printf "%s!\n", banner("fortran/gcuba.f90", "fortran/routines.def, " \
                         "fortran/gcuba.f90.in and include/gcuba.h") > out
  done = 0
  while ((getline line < frame) > 0) {
    if (line ~ /^!!/) continue
    if (line == "@INTERFACES@") {
      printf "%s", interfaces() > out
      done = 1
    } else print line > out
  }
  close(frame)
  close(out)
  if (!done) err(frame ": no line @INTERFACES@")
}

# ---- fortran.inc: the entry points gfortran calls

# the C declaration of argument j of routine i in form ll (desc: the
# integrand is a gintegrand_t's address)
function wparam(i, j, ll, desc,   k, nm, n) {
  k = a_k[i, j]
  nm = a_nm[i, j]
  n = ll ? "long long" : "int"
  if (k == "int" || k == "int-ref") return "const int *" nm
  if (k == "count") return "const " n " *" nm
  if (k == "real") return "const double *" nm
  if (k == "size") return "const long long *" nm
  if (k == "integrand")
    return desc ? "const gintegrand_t *" nm : "gcuba_host_fn " nm
  if (k == "any") return "void *" nm
  if (k == "string") return "const char *" nm
  if (k == "hook") return "void (*" nm ")()"
  if (k == "comm") return "const MPI_Fint *" nm
  if (k == "xgiven") return "double " nm "[]"
  if (k == "peakfinder") return "gcuba_peakfinder_t " nm
  if (k == "int-out") return "int *" nm
  if (k == "count-out") return n " *" nm
  if (k == "int-out[]") return "int " nm "[]"
  if (k == "count-out[]") return n " " nm "[]"
  return "double " nm "[]"
}

# the entry point's parameters into w_decl[1..n], the hidden lengths of
# character arguments last; returns n
function wargs(i, ll, desc,   j, n, nl, lens) {
  n = nl = 0
  for (j = 1; j <= it_na[i]; j++) {
    w_decl[++n] = wparam(i, j, ll, desc)
    if (a_k[i, j] == "string") lens[++nl] = a_nm[i, j] "len"
  }
  if (it_ret[i] == "string") {
    w_decl[++n] = "char *" it_res[i]
    lens[++nl] = it_res[i] "len"
  }
  for (j = 1; j <= nl; j++) w_decl[++n] = "size_t " lens[j]
  return n
}

function wret(i) {
  return it_ret[i] == "int" ? "int" : "void"
}

# what the entry point passes for argument j
function wcall(i, j,   k, nm) {
  k = a_k[i, j]
  nm = a_nm[i, j]
  if (k ~ /^(int|count|real)$/)
    return it_type[i] == "routine" ? nm " ? *" nm " : 0" : "*" nm
  if (k == "size") return "(size_t)*" nm
  if (k == "integrand") return "f.in"
  if (k == "string") return "f.state"
  return nm
}

function entry(i, ll, desc, cname, fname,   n, j, list, head, call, s, st,
               fl) {
  n = wargs(i, ll, desc)
  list = ""
  for (j = 1; j <= n; j++) list = add(list, w_decl[j])
  if (n == 0) list = "void"
  head = wrap(wret(i) " " fname "(", list, ")",
              sprintf("%" (length(wret(i) fname) + 2) "s", ""), "", 79)
  call = st = fl = ""
  for (j = 1; j <= it_na[i]; j++) {
    call = add(call, wcall(i, j))
    if (a_k[i, j] == "string") st = a_nm[i, j]
    if (a_nm[i, j] == "fail") fl = a_nm[i, j]
  }
  s = head ";\n" head "\n{\n"
  if (it_type[i] == "integrator") {
    s = s "  fcall f;\n  if (" (desc ? "fdescriptor" : "ffunction") \
      "(&f, integrand, " (st != "" ? st ", " st "len" : "NULL, 0") ", " \
      fl ")) return;\n"
    s = s wrap("  " cname "(", call, ");",
               sprintf("%" (length(cname) + 3) "s", ""), "", 79) "\n"
    if (st != "") s = s "  free(f.state);\n"
  } else if (it_ret[i] == "string") {
    s = s wrap("  fstring(" cname "(", call,
               "), " it_res[i] ", " it_res[i] "len);",
               "          ", "", 79) "\n"
  } else {
    s = s wrap("  " (it_ret[i] == "int" ? "return " : "") cname "(", call,
               ");",
               "    ", "", 79) "\n"
  }
  return s "}\n"
}

# the table's `!' lines as a C comment
function ccomment(c,   l, n, i, out) {
  n = split(c, l, "\n")
  if (n < 2) return ""
  out = "/*"
  for (i = 1; i < n; i++) {
    sub(/^! ?/, "", l[i])
    out = out (i > 1 ? "\n  " : "") " " l[i]
  }
  return out " */\n"
}

function write_inc(out,   i, g, l, fn, ob) {
  printf "%s", \
    "/* src/api/fortran.inc -- generated by fortran/gen.sh from\n" \
    "   fortran/routines.def; do not edit: edit the table, then run\n" \
    "   `make fortran-gen' (fortran/README).  Included by\n" \
    "   src/api/fortran.c, which defines fcall, ffunction, fdescriptor and\n" \
    "   fstring and says how gfortran passes the arguments.  Each entry\n" \
    "   point is declared first, for -Wmissing-prototypes (Fortran\n" \
    "   declares them itself). */\n" > out
  fn = "a Fortran function"
  ob = "a GCUBA_INTEGRAND object"
  for (i = 1; i <= nit; i++) {
    if (it_type[i] == "integrator") {
      g = tolower(it_c[i])
      l = tolower(it_ll[i])
      printf "\n/* ---- %s and %s */\n", it_c[i], it_ll[i] > out
      printf "\n/* %s, the integrand %s */\n%s", it_c[i], fn,
        entry(i, 0, 0, it_c[i], g "_") > out
      printf "\n/* %s, the integrand %s */\n%s", it_c[i], ob,
        entry(i, 0, 1, it_c[i], g "_desc_") > out
      printf "\n/* %s, the integrand %s */\n%s", it_ll[i], fn,
        entry(i, 1, 0, it_ll[i], l "_") > out
      printf "\n/* %s, the integrand %s */\n%s", it_ll[i], ob,
        entry(i, 1, 1, it_ll[i], l "_desc_") > out
    }
  }
  printf "\n/* ---- Cuba's other routines, gcuba's queries */\n" > out
  for (i = 1; i <= nit; i++)
    if (it_type[i] == "routine" && !it_nof77[i] && it_f77in[i] == "")
      printf "\n%s%s", ccomment(it_cmt[i]), entry(i, 0, 0, it_c[i],
                                                 it_c[i] "_") > out
  close(out)
}
