package litebench.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.eclipsesource.json.Json;
import com.eclipsesource.json.JsonArray;
import com.eclipsesource.json.JsonObject;
import com.eclipsesource.json.JsonValue;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Workload programs against the Go reference: every expression of
 * internal/spec/testdata/program-vectors.json evaluated five times by a
 * fresh worker, and every program of program-runs.json set up and run as a
 * job, giving the reference's content digests and counts that add up.
 */
class ProgramTest {
  static JsonValue typed(Object v) {
    if (v == null) {
      return new JsonObject().add("null", true);
    }
    if (v instanceof Boolean) {
      return new JsonObject().add("bool", (Boolean) v);
    }
    if (v instanceof Long) {
      return new JsonObject().add("int", v.toString());
    }
    if (v instanceof Double) {
      return new JsonObject().add("float", String.format("%016x", Double.doubleToRawLongBits((Double) v)));
    }
    return new JsonObject().add("text", (String) v);
  }

  static Expr.Ctx worker(JsonObject p, List<Program.Table> tables, int w) throws Exception {
    long seed = Long.parseUnsignedLong(p.getString("seed", "0"));
    JsonArray vars = p.get("vars").asArray();
    Expr.Ctx x = new Expr.Ctx(vars.size(), Gen.draw(seed, Gen.STREAM_KEYS, w + 1), tables);
    for (int k = 0; k < vars.size(); k++) {
      JsonValue v = vars.get(k).asObject().get("value");
      if (v != null) {
        x.assign(k, Expr.compile(v.asObject(), tables).eval(x));
      }
    }
    x.assign(p.getInt("client_id", 0), (long) w);
    if (p.getInt("scale", -1) >= 0) {
      x.assign(p.getInt("scale", -1), 1L);
    }
    return x;
  }

  @Test
  void expressions() throws Exception {
    JsonObject v = VectorsTest.load("internal/spec/testdata/program-vectors.json");
    JsonObject p = v.get("program").asObject();
    long seed = Long.parseUnsignedLong(p.getString("seed", "0"));
    List<Program.Table> tables = new ArrayList<>();
    for (JsonValue t : p.get("tables").asArray()) {
      tables.add(Program.Table.of(t.asObject(), seed));
    }
    List<String> bad = new ArrayList<>();
    int n = 0;
    for (JsonValue cv : v.get("cases").asArray()) {
      JsonObject c = cv.asObject();
      n++;
      Expr.Ctx x = worker(p, tables, c.getInt("worker", 0));
      Expr.Node e = Expr.compile(c.get("expr").asObject(), tables);
      JsonArray got = new JsonArray();
      String err = null;
      for (int k = 0; k < 5; k++) {
        try {
          got.add(typed(e.eval(x)));
        } catch (Expr.EvalError ex) {
          err = ex.getMessage();
          break;
        }
      }
      JsonValue want = c.get("values");
      JsonArray wantVals = want == null ? new JsonArray() : want.asArray();
      boolean wantErr = c.get("error") != null;
      if (!got.equals(wantVals) || (err != null) != wantErr) {
        bad.add(c.getString("src", "") + " (worker " + c.getInt("worker", 0) + "): got " + got + " " + err
            + ", want " + wantVals + " " + c.get("error"));
      } else if (wantErr) {
        assertEquals(c.getString("error", ""), err, c.getString("src", ""));
      }
    }
    assertTrue(n > 100, "vectors: " + n);
    assertTrue(bad.isEmpty(), String.join("\n", bad));
  }

  @Test
  void textValues() {
    assertEquals(42L, Expr.textValue("42"));
    assertEquals(-7L, Expr.textValue("-7"));
    assertEquals("042", Expr.textValue("042"));
    assertEquals("+7", Expr.textValue("+7"));
    assertEquals("-0", Expr.textValue("-0"));
    assertEquals(Long.MIN_VALUE, Expr.textValue("-9223372036854775808"));
    assertEquals("9223372036854775808", Expr.textValue("9223372036854775808"));
    assertEquals("1e+06", Program.textOf(1e6));
    assertEquals("2.5", Program.textOf(2.5));
    assertEquals("42", Program.textOf(42.0));
  }

  @Test
  void checksCompare() {
    assertTrue(Program.compareText("10", ">", "9"));
    assertTrue(Program.compareText("10.0", "=", "10"));
    assertTrue(!Program.compareText("abc", "=", "abd"));
    assertTrue(Program.compareText("abc", "!=", "abd"));
    assertTrue(Program.compareText("abc", "<", "abd"));
  }

  /** The cases of program-runs.json. */
  static JsonArray runCases() throws Exception {
    Path f = VectorsTest.repo().resolve("internal/spec/testdata/program-runs.json");
    return Json.parse(Files.readString(f, StandardCharsets.UTF_8)).asArray();
  }

  @Test
  void runs(@TempDir Path tmp) throws Exception {
    List<String> bad = new ArrayList<>();
    int n = 0;
    for (JsonValue cv : runCases()) {
      JsonObject c = cv.asObject();
      String id = c.getString("id", "");
      n++;
      JsonObject prog = c.get("program").asObject();
      JsonObject job = new JsonObject().add("workload", c.getString("name", "")).add("program", prog)
          .add("settings", c.get("settings")).add("path", tmp.resolve(id + ".db").toString()).add("digest", true);
      Worker w = new Worker(new Db.Stop());
      JsonObject fin;
      try {
        JsonObject setup = w.setup(Worker.Job.of(job));
        if (!c.getString("setup_digest", "").equals(setup.getString("digest", ""))) {
          bad.add(id + ": setup digest " + setup.getString("digest", "") + ", want " + c.getString("setup_digest", ""));
          continue;
        }
        fin = w.run(ev -> {});
      } finally {
        w.close();
      }
      if (!"ok".equals(fin.getString("status", ""))) {
        bad.add(id + ": " + fin.getString("status", "") + ": " + fin.getString("error", ""));
        continue;
      }
      if (!c.getString("final_digest", "").equals(fin.getString("digest", ""))) {
        bad.add(id + ": final digest " + fin.getString("digest", "") + ", want " + c.getString("final_digest", ""));
        continue;
      }
      long done = fin.get("done").asLong();
      JsonValue load = prog.get("load");
      JsonArray ops = fin.get("final_ops").asArray();
      if (load != null && load.isObject()) {
        long want = load.asObject().getLong("count", 0);
        int txns = prog.get("transactions").asArray().size();
        List<String> names = new ArrayList<>();
        JsonArray pops = prog.get("ops").asArray();
        for (int k = 0; k < txns; k++) {
          names.add(pops.get(k).asString());
        }
        long sum = 0;
        for (JsonValue o : ops) {
          JsonObject op = o.asObject();
          if (names.contains(op.getString("name", ""))) {
            assertNotNull(op.get("count"));
            assertEquals(null, op.get("of"), id + ": a transaction is a part of none");
            sum += op.getLong("count", 0);
          } else {
            assertEquals(pops.get(indexOf(pops, op.getString("name", ""))).asString(), op.getString("name", ""));
            assertTrue(op.get("of") != null, id + ": part " + op.getString("name", "") + " without of");
          }
        }
        if (done != want || sum != done) {
          bad.add(id + ": done " + done + ", transactions " + sum + ", want " + want);
        }
      } else {
        long want = prog.get("insert").asObject().getLong("rows", 0);
        if (done != want) {
          bad.add(id + ": done " + done + ", want " + want);
        }
      }
    }
    assertTrue(n >= 10, "cases: " + n);
    assertTrue(bad.isEmpty(), String.join("\n", bad));
  }

  /** A program of statements that return rows without being queries, and checks after the run. */
  static JsonObject returning(String cmp, String want) {
    return Json.parse("{\"version\":1,\"name\":\"ret\",\"seed\":\"3\","
        + "\"tables\":[{\"name\":\"t\",\"rows\":5,\"create\":[\"CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT)\"],"
        + "\"columns\":[{\"name\":\"id\",\"kind\":\"seq\",\"type\":\"int\",\"args\":{\"start\":1}},"
        + "{\"name\":\"v\",\"kind\":\"hex\",\"type\":\"text\",\"args\":{\"bytes\":4,\"stream\":\"0\"}}],\"update\":[1]}],"
        + "\"vars\":[{\"name\":\"n\",\"value\":{\"op\":\"int\",\"v\":\"100\"}},{\"name\":\"client_id\"},{\"name\":\"got\"}],"
        + "\"client_id\":1,\"scale\":-1,"
        + "\"statements\":[{\"sql\":\"INSERT INTO t(id, v) VALUES (?, 'x') RETURNING id\",\"binds\":[0],\"at\":\"f:1:1\"},"
        + "{\"sql\":\"PRAGMA user_version\",\"binds\":[],\"at\":\"f:2:1\"},"
        + "{\"sql\":\"SELECT v FROM t WHERE id = ?\",\"binds\":[0],\"into\":[2],\"read\":true,\"at\":\"f:3:1\"}],"
        + "\"transactions\":[{\"name\":\"add\",\"steps\":["
        + "{\"kind\":\"set\",\"part\":-1,\"var\":0,\"expr\":{\"op\":\"binary\",\"fn\":\"+\","
        + "\"a\":[{\"op\":\"var\",\"slot\":0,\"name\":\"n\"},{\"op\":\"int\",\"v\":\"1\"}]}},"
        + "{\"kind\":\"begin\",\"part\":1},{\"kind\":\"sql\",\"part\":2,\"stmt\":0},{\"kind\":\"sql\",\"part\":-1,\"stmt\":1},"
        + "{\"kind\":\"commit\",\"part\":-1},{\"kind\":\"sql\",\"part\":-1,\"stmt\":2}]}],"
        + "\"ops\":[\"add\",\"add:begin\",\"add:1\"],\"of\":[\"\",\"add\",\"add\"],"
        + "\"load\":{\"count\":10,\"roles\":[-1],\"mix\":[{\"txn\":0,\"weight\":1}]},"
        + "\"checks\":[{\"name\":\"added\",\"sql\":\"SELECT count(*) FROM t WHERE v = 'x'\",\"expect\":\"cmp\","
        + "\"cmp\":\"" + cmp + "\",\"want\":\"" + want + "\",\"at\":\"f:9:1\"}]}").asObject();
  }

  static JsonObject runJob(JsonObject prog, Path db) throws Exception {
    JsonObject job = new JsonObject().add("workload", "ret").add("program", prog).add("path", db.toString());
    Worker w = new Worker(new Db.Stop());
    try {
      w.setup(Worker.Job.of(job));
      return w.run(ev -> {});
    } finally {
      w.close();
    }
  }

  @Test
  void rowsOfUpdatesAndChecks(@TempDir Path tmp) throws Exception {
    JsonObject fin = runJob(returning(">=", "10"), tmp.resolve("a.db"));
    assertEquals("ok", fin.getString("status", ""), fin.getString("error", ""));
    assertEquals(10, fin.get("done").asLong());
    assertEquals("[\"check \\\"added\\\" passed: 10\"]", fin.get("notes").toString());
    long parts = 0;
    for (JsonValue o : fin.get("final_ops").asArray()) {
      if (o.asObject().get("of") != null) {
        assertEquals("add", o.asObject().getString("of", ""));
        parts += o.asObject().getLong("count", 0);
      }
    }
    assertEquals(20, parts, "begin and the insert of each transaction");
    fin = runJob(returning(">", "10"), tmp.resolve("b.db"));
    assertEquals("failed", fin.getString("status", ""));
    assertEquals("check \"added\" failed: got 10, want > 10 (f:9:1)", fin.getString("error", ""));
  }

  private static int indexOf(JsonArray a, String s) {
    for (int k = 0; k < a.size(); k++) {
      if (a.get(k).asString().equals(s)) {
        return k;
      }
    }
    return -1;
  }
}
