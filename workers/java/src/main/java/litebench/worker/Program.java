package litebench.worker;

import com.eclipsesource.json.JsonArray;
import com.eclipsesource.json.JsonObject;
import com.eclipsesource.json.JsonValue;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A workload program (docs/workload-program.md): a workload file or pgbench
 * scripts compiled by litebench into plain data, run here with the
 * program's expressions (Expr, Funcs), the column generators, the loader
 * (Insert) and the load engine (LoadGen), as the Go reference runs it
 * (internal/spec: Setup, Run, executor).
 */
final class Program implements Workloads.Workload {
  /** A table of the run and the rows that exist now. */
  static final class Table {
    final String name;
    final long rows;
    final List<String> create;
    final Schema schema;
    final long seed;
    final Map<Double, Gen.Zipf> zipfs = new HashMap<>();
    Ops.Claims claims;

    Table(String name, long rows, List<String> create, Schema schema, long seed) {
      this.name = name;
      this.rows = rows;
      this.create = create;
      this.schema = schema;
      this.seed = seed;
      this.claims = new Ops.Claims(rows, 1);
    }

    /** The zipfian of the keys for theta, over the rows loaded at set-up. */
    synchronized Gen.Zipf zipf(double theta) {
      return zipfs.computeIfAbsent(theta, t -> new Gen.Zipf(Math.max(rows, 1), t));
    }

    /** Row i's key under the seed: a Long or a String. */
    Object key(long i) {
      Columns.Col c = schema.gen.cols[0];
      if (!schema.gen.text[0]) {
        return c.intValue(seed, i);
      }
      Columns.Bytes b = new Columns.Bytes();
      c.append(b, seed, i);
      return b.string(0);
    }

    static Table of(JsonObject t, long seed) throws Settings.BadJob {
      String name = t.getString("name", "");
      List<Columns.Col> cols = new ArrayList<>();
      for (JsonValue cv : arr(t, "columns")) {
        JsonObject c = cv.asObject();
        JsonValue args = c.get("args");
        try {
          cols.add(Columns.fromJson(c.getString("name", ""), c.getString("kind", ""),
              args != null && args.isObject() ? args.asObject() : new JsonObject()));
        } catch (RuntimeException e) {
          throw new Settings.BadJob("program: table " + name + " column " + c.getString("name", "") + ": "
              + Db.message(e));
        }
      }
      if (cols.isEmpty()) {
        throw new Settings.BadJob("program: table " + name + " has no columns");
      }
      List<String> update = new ArrayList<>();
      for (JsonValue u : arr(t, "update")) {
        int k = u.asInt();
        if (k < 0 || k >= cols.size()) {
          throw new Settings.BadJob("program: table " + name + ": no column " + k + " to update");
        }
        update.add(cols.get(k).name);
      }
      Schema sc;
      try {
        sc = Schema.of(name, strings(t, "create"), update.toArray(new String[0]), cols.toArray(new Columns.Col[0]));
      } catch (IllegalArgumentException e) {
        throw new Settings.BadJob("program: table " + name + ": " + e.getMessage());
      }
      return new Table(name, t.getLong("rows", 0), strings(t, "create"), sc, seed);
    }
  }

  static JsonArray arr(JsonObject o, String k) {
    JsonValue v = o.get(k);
    return v != null && v.isArray() ? v.asArray() : new JsonArray();
  }

  static List<String> strings(JsonObject o, String k) {
    List<String> out = new ArrayList<>();
    for (JsonValue v : arr(o, k)) {
      out.add(v.asString());
    }
    return out;
  }

  static int[] ints(JsonObject o, String k) {
    JsonArray a = arr(o, k);
    int[] out = new int[a.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = a.get(i).asInt();
    }
    return out;
  }

  static JsonObject obj(JsonObject o, String k) {
    JsonValue v = o.get(k);
    return v != null && v.isObject() ? v.asObject() : null;
  }

  /** A statement of the steps. */
  static final class Stmt {
    final String sql;
    final int[] binds;
    final int[] into;
    final boolean read;
    final String at;
    Db.Stmt forRead;
    Db.Stmt forWrite;

    Stmt(JsonObject s) {
      sql = s.getString("sql", "");
      binds = ints(s, "binds");
      into = ints(s, "into");
      read = s.getBoolean("read", false);
      at = s.getString("at", "");
    }
  }

  static final int S_SET = 0;
  static final int S_SLEEP = 1;
  static final int S_SQL = 2;
  static final int S_BEGIN = 3;
  static final int S_COMMIT = 4;
  static final int S_ROLLBACK = 5;
  static final int S_TABLE = 6;
  static final int S_NATIVE = 7;
  static final String[] STEP_KINDS = {"set", "sleep", "sql", "begin", "commit", "rollback", "table", "native"};

  static final int OP_READ = 0;
  static final int OP_INSERT = 1;
  static final int OP_UPDATE = 2;
  static final int OP_UPSERT = 3;
  static final int OP_SCAN_VERIFY = 4;
  static final int OP_PAGINATE_OFFSET = 5;
  static final int OP_PAGINATE_KEYSET = 6;
  static final String[] OP_NAMES = {"read", "insert", "update", "upsert", "scan_verify", "paginate_offset", "paginate_keyset"};

  /** A table or native operation. */
  static final class TableOp {
    final int kind;
    final Table t;
    final String sql;
    final int keys;
    final Gen.Zipf zipf;
    final int batch;
    final int[] bind;
    final long depth;
    final long page;
    final int idx;
    Db.Stmt prep;

    TableOp(JsonObject o, List<Table> tables, int idx, String at) throws Settings.BadJob {
      String op = o.getString("op", "");
      int k = -1;
      for (int i = 0; i < OP_NAMES.length; i++) {
        if (OP_NAMES[i].equals(op)) {
          k = i;
        }
      }
      if (k < 0) {
        throw new Settings.BadJob("program: " + at + ": unknown operation " + Text.quote(op));
      }
      int ti = o.getInt("table", 0);
      if (ti < 0 || ti >= tables.size()) {
        throw new Settings.BadJob("program: " + at + ": no table " + ti);
      }
      this.kind = k;
      this.t = tables.get(ti);
      this.sql = o.getString("sql", "");
      this.keys = Gen.keyKind(o.getString("keys", Gen.KEYS_UNIFORM));
      this.zipf = keys == Gen.KIND_UNIFORM || k > OP_UPSERT ? null : t.zipf(o.getDouble("theta", 0));
      this.batch = Math.max(1, o.getInt("batch", 1));
      this.bind = o.get("bind") != null && o.get("bind").isArray() ? ints(o, "bind") : null;
      this.depth = o.getLong("depth", 0);
      this.page = o.getLong("page", 0);
      this.idx = idx;
      if ((k == OP_PAGINATE_OFFSET || k == OP_PAGINATE_KEYSET) && t.schema.gen.text[0]) {
        throw new Settings.BadJob("program: " + at + ": " + op + " needs an integer key; " + t.name + "'s is text");
      }
      if (k == OP_SCAN_VERIFY && (col(t, "rand") < 0 || col(t, "hash") < 0)) {
        throw new Settings.BadJob("program: " + at + ": scan_verify needs columns rand and hash in " + t.name);
      }
    }

    boolean writes() {
      return kind == OP_INSERT || kind == OP_UPDATE || kind == OP_UPSERT;
    }
  }

  static int col(Table t, String name) {
    for (int k = 0; k < t.schema.columns.length; k++) {
      if (t.schema.columns[k].equals(name)) {
        return k;
      }
    }
    return -1;
  }

  /** A step of a transaction. */
  static final class Step {
    final int kind;
    final String at;
    final int part;
    final int var;
    final Expr.Node expr;
    final long unitNs;
    final int stmt;
    final boolean read;
    final TableOp op;

    Step(int kind, String at, int part, int var, Expr.Node expr, long unitNs, int stmt, boolean read, TableOp op) {
      this.kind = kind;
      this.at = at;
      this.part = part;
      this.var = var;
      this.expr = expr;
      this.unitNs = unitNs;
      this.stmt = stmt;
      this.read = read;
      this.op = op;
    }
  }

  /** A check read after the run. */
  static final class Check {
    final String name;
    final String sql;
    final String expect;
    final String cmp;
    final String want;
    final String at;
    String base;

    Check(JsonObject c) {
      name = c.getString("name", "");
      sql = c.getString("sql", "");
      expect = c.getString("expect", "");
      cmp = c.getString("cmp", "=");
      want = c.getString("want", "");
      at = c.getString("at", "");
    }
  }

  final String name;
  final long seed;
  final List<Table> tables = new ArrayList<>();
  final List<String> init;
  final Object[] start;
  final boolean[] startSet;
  final String[] varNames;
  final int clientId;
  final int scaleSlot;
  long scale = 1;
  final Stmt[] stmts;
  final Step[][] txns;
  final String[] ops;
  final String[] of;
  final List<TableOp> tops = new ArrayList<>();
  final List<Check> checks = new ArrayList<>();
  final boolean explicit;
  // load
  final LoadGen.Config cfg;
  // insert
  final Table insTable;
  final long insRows;
  final int insWorkers;
  final boolean insVacuum;

  private Program(JsonObject p, Settings s) throws Settings.BadJob {
    if (p.getInt("version", 0) != 1) {
      throw new Settings.BadJob("program version " + p.get("version") + ": this worker runs version 1");
    }
    name = p.getString("name", "");
    try {
      seed = Long.parseUnsignedLong(p.getString("seed", "0"));
    } catch (NumberFormatException e) {
      throw new Settings.BadJob("program seed " + Text.quote(p.getString("seed", "")) + ": want a 64-bit unsigned number");
    }
    for (JsonValue t : arr(p, "tables")) {
      tables.add(Table.of(t.asObject(), seed));
    }
    init = strings(p, "init");
    JsonArray vars = arr(p, "vars");
    start = new Object[vars.size()];
    startSet = new boolean[vars.size()];
    varNames = new String[vars.size()];
    try {
      for (int k = 0; k < vars.size(); k++) {
        JsonObject v = vars.get(k).asObject();
        varNames[k] = v.getString("name", "");
        JsonObject val = obj(v, "value");
        if (val != null) {
          start[k] = Expr.compile(val, tables).eval(null);
          startSet[k] = true;
        }
      }
      clientId = p.getInt("client_id", 0);
      scaleSlot = p.getInt("scale", 0);
      if (clientId < 0 || clientId >= vars.size() || scaleSlot >= vars.size()) {
        throw new Settings.BadJob("program: client_id or scale names no variable");
      }
      JsonArray sts = arr(p, "statements");
      stmts = new Stmt[sts.size()];
      for (int k = 0; k < stmts.length; k++) {
        stmts[k] = new Stmt(sts.get(k).asObject());
        for (int slot : stmts[k].binds) {
          checkSlot(slot, stmts[k].at);
        }
        for (int slot : stmts[k].into) {
          checkSlot(slot, stmts[k].at);
        }
      }
      ops = strings(p, "ops").toArray(new String[0]);
      List<String> ofs = strings(p, "of");
      of = new String[ops.length];
      for (int k = 0; k < ops.length; k++) {
        of[k] = k < ofs.size() ? ofs.get(k) : "";
      }
      JsonArray tx = arr(p, "transactions");
      txns = new Step[tx.size()][];
      if (tx.size() > ops.length) {
        throw new Settings.BadJob("program: " + tx.size() + " transactions but " + ops.length + " ops");
      }
      for (int k = 0; k < txns.length; k++) {
        JsonObject t = tx.get(k).asObject();
        JsonArray steps = arr(t, "steps");
        txns[k] = new Step[steps.size()];
        for (int i = 0; i < steps.size(); i++) {
          txns[k][i] = step(steps.get(i).asObject());
        }
      }
    } catch (IllegalArgumentException e) {
      throw new Settings.BadJob(Db.message(e));
    }
    for (JsonValue c : arr(p, "checks")) {
      checks.add(new Check(c.asObject()));
    }
    explicit = "immediate".equals(s.get("tx"));
    JsonObject ins = obj(p, "insert");
    if (ins != null) {
      int ti = ins.getInt("table", 0);
      if (ti < 0 || ti >= tables.size()) {
        throw new Settings.BadJob("program: insert: no table " + ti);
      }
      insTable = tables.get(ti);
      insRows = ins.getLong("rows", 0);
      insWorkers = Math.max(1, ins.getInt("workers", 1));
      if (insWorkers > Workloads.MAX_THREADS) {
        throw new Settings.BadJob("program: insert: " + insWorkers + " workers: at most " + Workloads.MAX_THREADS);
      }
      insVacuum = ins.getBoolean("vacuum", false);
      Workloads.checkRowsPerStmt(insTable.schema, s.integer("rows-per-stmt"));
      cfg = null;
      return;
    }
    insTable = null;
    insRows = 0;
    insWorkers = 0;
    insVacuum = false;
    JsonObject load = obj(p, "load");
    if (load == null) {
      throw new Settings.BadJob("program " + name + ": neither load nor insert");
    }
    cfg = loadConfig(load);
  }

  private void checkSlot(int slot, String at) throws Settings.BadJob {
    if (slot < 0 || slot >= start.length) {
      throw new Settings.BadJob("program: " + at + ": no variable slot " + slot);
    }
  }

  private LoadGen.Config loadConfig(JsonObject load) throws Settings.BadJob {
    LoadGen.Config c = new LoadGen.Config();
    c.ops = ops;
    c.seed = seed;
    c.count = load.getLong("count", 0);
    c.duration = c.count > 0 ? 0 : load.getLong("duration_ns", 0);
    c.warmup = load.getLong("warmup_ns", 0);
    if (c.count <= 0 && c.duration <= 0) {
      throw new Settings.BadJob("program " + name + ": load: set a duration or a count");
    }
    c.rate = load.getDouble("rate", 0);
    c.poisson = "poisson".equals(load.getString("arrivals", "uniform"));
    c.maxInflight = Math.max(1, load.getInt("max_inflight", 1));
    if (c.maxInflight > Workloads.MAX_THREADS) {
      throw new Settings.BadJob("program " + name + ": max_inflight " + c.maxInflight + ": at most " + Workloads.MAX_THREADS);
    }
    c.roles = ints(load, "roles");
    if (c.rate <= 0 && c.roles.length == 0) {
      c.roles = new int[] {LoadGen.ANY_OP};
    }
    if (c.roles.length > Workloads.MAX_THREADS) {
      throw new Settings.BadJob("program " + name + ": " + c.roles.length + " workers: at most " + Workloads.MAX_THREADS);
    }
    for (int r : c.roles) {
      if (r >= txns.length || r < LoadGen.ANY_OP) {
        throw new Settings.BadJob("program " + name + ": role " + r + " names no transaction");
      }
    }
    JsonArray mix = arr(load, "mix");
    int[] txn = new int[mix.size()];
    double[] weight = new double[mix.size()];
    double total = 0;
    for (int k = 0; k < txn.length; k++) {
      txn[k] = mix.get(k).asObject().getInt("txn", 0);
      weight[k] = mix.get(k).asObject().getDouble("weight", 0);
      if (txn[k] < 0 || txn[k] >= txns.length) {
        throw new Settings.BadJob("program " + name + ": mix names no transaction " + txn[k]);
      }
      total += weight[k];
    }
    boolean chooses = c.rate > 0;
    for (int r : c.roles) {
      chooses = chooses || r == LoadGen.ANY_OP;
    }
    if (chooses && !(total > 0)) {
      throw new Settings.BadJob("program " + name + ": the mix's weights add up to nothing");
    }
    c.choose = mixChooser(seed, txn, weight);
    return c;
  }

  /** The transaction of operation seq as the mix chooses it (docs/workload-program.md, Running). */
  static LoadGen.Chooser mixChooser(long seed, int[] txn, double[] weight) {
    double total = 0;
    for (double w : weight) {
      total += w;
    }
    double[] thr = new double[weight.length];
    double acc = 0;
    for (int k = 0; k < weight.length; k++) {
      acc += weight[k];
      thr[k] = acc * (10000 / total);
    }
    return seq -> {
      double x = (double) Long.remainderUnsigned(Gen.draw(seed, Gen.STREAM_OPS, seq), 10000);
      for (int k = 0; k < thr.length; k++) {
        if (x < thr[k]) {
          return txn[k];
        }
      }
      return txn.length == 0 ? 0 : txn[txn.length - 1];
    };
  }

  private Step step(JsonObject o) throws Settings.BadJob {
    String kind = o.getString("kind", "");
    int k = -1;
    for (int i = 0; i < STEP_KINDS.length; i++) {
      if (STEP_KINDS[i].equals(kind)) {
        k = i;
      }
    }
    String at = o.getString("at", "");
    if (k < 0) {
      throw new Settings.BadJob("program: " + at + ": unknown step " + Text.quote(kind));
    }
    int part = o.getInt("part", -1);
    if (part >= ops.length) {
      throw new Settings.BadJob("program: " + at + ": part " + part + " names no op");
    }
    JsonObject e = obj(o, "expr");
    Expr.Node expr = e != null ? Expr.compile(e, tables) : null;
    if ((k == S_SET || k == S_SLEEP) && expr == null) {
      throw new Settings.BadJob("program: " + at + ": " + kind + " without an expression");
    }
    int var = o.getInt("var", 0);
    if (k == S_SET) {
      checkSlot(var, at);
    }
    int stmt = o.getInt("stmt", 0);
    if (k == S_SQL && (stmt < 0 || stmt >= stmts.length)) {
      throw new Settings.BadJob("program: " + at + ": no statement " + stmt);
    }
    TableOp op = null;
    if (k == S_TABLE || k == S_NATIVE) {
      JsonObject oj = obj(o, "op");
      if (oj == null) {
        throw new Settings.BadJob("program: " + at + ": " + kind + " without an op");
      }
      op = new TableOp(oj, tables, tops.size(), at);
      tops.add(op);
    }
    return new Step(k, at, part, var, expr, o.getLong("unit_ns", 1), stmt, o.getBoolean("read", false), op);
  }

  static Program create(JsonObject p, Settings s) throws Settings.BadJob {
    try {
      return new Program(p, s);
    } catch (UnsupportedOperationException | IllegalArgumentException e) {
      // a member of the wrong JSON type
      throw new Settings.BadJob("program: " + Db.message(e));
    }
  }

  @Override
  public String[] ops() {
    return insTable != null ? Insert.OPS : ops;
  }

  @Override
  public String partOf(int op) {
    return insTable != null || op >= of.length ? "" : of[op];
  }

  /** How many threads the run may have at once. */
  int concurrency() {
    if (insTable != null) {
      return insWorkers;
    }
    return cfg.rate > 0 ? cfg.maxInflight : cfg.roles.length;
  }

  /** A per-table figure's name: plain for a program of one table. */
  private String figure(String fig, Table t) {
    return tables.size() == 1 ? fig : fig + "." + t.name;
  }

  @Override
  public void setup(Env env) throws Exception {
    Db.Session sess = env.session;
    for (Table t : tables) {
      for (String q : t.create) {
        try {
          sess.exec(q);
        } catch (SQLException e) {
          throw new SQLException("create " + t.name + ": " + Db.message(e), e);
        }
      }
    }
    for (Table t : tables) {
      if (t.rows > 0) {
        try {
          Scan.preload(env, t.schema, seed, t.rows);
        } catch (Exception e) {
          throw new Exception("loading " + t.rows + " rows of " + t.name + ": " + Db.message(e), e);
        }
      }
    }
    for (String q : init) {
      try {
        sess.exec(q);
      } catch (SQLException e) {
        throw new SQLException("init SQL: " + Db.message(e), e);
      }
    }
    if (insTable == null) {
      for (Table t : tables) {
        env.figure(figure("table_rows_before", t), "rows", "", t.rows);
      }
    }
    if (scaleSlot >= 0) {
      scale = 1;
      try {
        if (sess.count("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'pgbench_branches'") == 1) {
          long n = sess.count("SELECT count(*) FROM pgbench_branches");
          if (n > 0) {
            scale = n;
          }
        }
      } catch (Exception e) {
        // no branches: 1
      }
    }
    for (Check c : checks) {
      if (c.expect.equals("unchanged")) {
        try {
          c.base = read(sess, c)[0];
        } catch (Exception e) {
          throw new Exception("check " + Text.quote(c.name) + " before the run: " + Db.message(e), e);
        }
      }
    }
  }

  /** A column's value as Go's database/sql renders it as text; null for NULL. */
  static String textOf(Object v) {
    if (v == null) {
      return null;
    }
    if (v instanceof Double || v instanceof Float) {
      return Expr.goFloat(((Number) v).doubleValue());
    }
    if (v instanceof byte[]) {
      return new String((byte[]) v, java.nio.charset.StandardCharsets.UTF_8);
    }
    return v.toString();
  }

  /** A check's first column of its first row as text ("" for NULL), or null for no row; and whether a row came. */
  private static String[] read(Db.Session sess, Check c) throws Exception {
    String[] got = {null, null};
    sess.query(c.sql, Db.NO_ARGS, rs -> {
      if (got[1] == null) {
        got[1] = "row";
        String t = textOf(rs.getObject(1));
        got[0] = t == null ? "" : t;
      }
    });
    if (got[1] == null) {
      got[0] = "";
    }
    return got;
  }

  /** The checks after the run: a note each; a failed one fails the run. */
  private void verify(Env env) throws Exception {
    List<String> failed = new ArrayList<>();
    for (Check c : checks) {
      String[] r;
      try {
        r = read(env.session, c);
      } catch (Exception e) {
        throw new Exception("check " + Text.quote(c.name) + ": " + Db.message(e), e);
      }
      String got = r[0];
      boolean found = r[1] != null;
      boolean ok = false;
      String want = c.want;
      switch (c.expect) {
        case "empty":
          ok = !found;
          want = "no row";
          if (found) {
            got = "a row";
          }
          break;
        case "unchanged":
          ok = got.equals(c.base);
          want = c.base + " (unchanged)";
          break;
        default:
          String op = c.expect.equals("eq") ? "=" : c.cmp;
          if (!found) {
            got = "no row";
          } else {
            ok = compareText(got, op, c.want);
          }
          if (!op.equals("=")) {
            want = op + " " + c.want;
          }
      }
      if (ok) {
        env.note("check " + Text.quote(c.name) + " passed: " + got);
        continue;
      }
      String msg = "check " + Text.quote(c.name) + " failed: got " + got + ", want " + want + " (" + c.at + ")";
      env.note(msg);
      failed.add(msg);
    }
    if (!failed.isEmpty()) {
      throw new Exception(String.join("; ", failed));
    }
  }

  /** Compares a result with a wanted value: as numbers when both are, else as text (= and != only). */
  static boolean compareText(String got, String op, String want) {
    double g = Workloads.parseFloat(got.strip());
    double w = Workloads.parseFloat(want.strip());
    boolean gn = !Double.isNaN(g) || got.strip().toLowerCase(java.util.Locale.ROOT).matches("[+-]?nan");
    boolean wn = !Double.isNaN(w) || want.strip().toLowerCase(java.util.Locale.ROOT).matches("[+-]?nan");
    int c;
    if (gn && wn) {
      c = Expr.compare(g, w);
    } else {
      switch (op) {
        case "=":
          return got.equals(want);
        case "!=":
        case "<>":
          return !got.equals(want);
        default:
          c = Integer.signum(got.compareTo(want));
      }
    }
    return Expr.cmp(op, c);
  }

  @Override
  public void run(Env env) throws Exception {
    if (insTable != null) {
      runInsert(env);
      return;
    }
    Db.Session sess = env.session;
    LoadGen.Config c = cfg;
    int executors = concurrency();
    for (Table t : tables) {
      t.claims = new Ops.Claims(t.rows, executors);
    }
    List<Db.Stmt> all = new ArrayList<>();
    Exception[] err = {null};
    try {
      prepare(sess, all);
      Exec.Shared sh = new Exec.Shared(this, sess, env);
      c.classify = e -> e instanceof Exec.Missing ? "missing" : Db.classify(e).kind;
      c.newExecutor = i -> new Exec(sh, i);
      Ops.runLoad(env, c, ops, err);
    } finally {
      for (Db.Stmt s : all) {
        s.close();
      }
    }
    for (Table t : tables) {
      long n = t.claims.next.get();
      if (n > t.rows) {
        env.figure(figure("rows_inserted", t), "rows", "", n - t.rows);
      }
    }
    if (env.stop.stopped()) {
      if (err[0] != null) {
        throw err[0];
      }
      return;
    }
    // The tables' row counts after the run (not measured: the clock stopped at env.end).
    for (Table t : tables) {
      try {
        env.figure(figure("table_rows_after", t), "rows", "", sess.count("SELECT count(*) FROM " + t.schema.name));
      } catch (Exception e) {
        // leave it out
      }
    }
    if (err[0] != null) {
      throw err[0];
    }
    verify(env);
  }

  /** Readies every statement on the pools its steps use. */
  private void prepare(Db.Session sess, List<Db.Stmt> all) throws Exception {
    for (Stmt s : stmts) {
      s.forRead = prep(sess, s.sql, false, s.at, all);
      s.forWrite = sess.p.singleWriter ? prep(sess, s.sql, true, s.at, all) : s.forRead;
    }
    for (TableOp op : tops) {
      op.prep = prep(sess, op.sql, op.writes(), op.t.name, all);
    }
  }

  private static Db.Stmt prep(Db.Session sess, String sql, boolean write, String at, List<Db.Stmt> all) throws Exception {
    try {
      Db.Stmt st = sess.prepare(sql, write);
      all.add(st);
      return st;
    } catch (SQLException e) {
      throw new Exception(at + ": does not prepare: " + Db.message(e), e);
    }
  }

  private void runInsert(Env env) throws Exception {
    Insert ins = Insert.of(insTable.schema, insRows, insWorkers, seed, insVacuum);
    ins.explicit = explicit;
    ins.run(env);
    if (env.stop.stopped()) {
      return;
    }
    verify(env);
  }
}
