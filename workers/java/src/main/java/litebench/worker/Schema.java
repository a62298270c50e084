package litebench.worker;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The seeds' tables (internal/workload/data.go): their definitions in
 * SQLite's dialect, their column generators (docs/data-generation.md §4),
 * and the statements the workloads run on them, rendered as
 * internal/dialect renders them.
 */
final class Schema {
  final String name;
  final Columns.Table gen;
  final String[] columns;
  final String keyCol;
  final String[] updateCols;
  /** Positions of updateCols in a row. */
  final int[] updIdx;
  /** Positions of every column: 0, 1, … */
  final int[] allIdx;
  private final List<String> ddl;

  private Schema(String name, String[] ddl, String[] update, Columns.Col... cols) {
    this.name = name;
    this.gen = new Columns.Table(cols);
    this.columns = new String[cols.length];
    for (int k = 0; k < cols.length; k++) {
      columns[k] = cols[k].name;
    }
    this.keyCol = columns[0];
    this.allIdx = new int[cols.length];
    for (int k = 0; k < cols.length; k++) {
      allIdx[k] = k;
    }
    this.updateCols = update;
    this.updIdx = new int[update.length];
    for (int u = 0; u < update.length; u++) {
      for (int k = 0; k < columns.length; k++) {
        if (columns[k].equals(update[u])) {
          updIdx[u] = k;
        }
      }
    }
    this.ddl = List.of(ddl);
  }

  /** A table of a workload program: its DDL, the columns an update rewrites, its generators. */
  static Schema of(String name, List<String> ddl, String[] update, Columns.Col[] cols) {
    return new Schema(name, ddl.toArray(new String[0]), update, cols);
  }

  int width() {
    return columns.length;
  }

  boolean intKey() {
    return !gen.text[0];
  }

  /** The statements that create the table and its indexes. */
  List<String> create() {
    return ddl;
  }

  /** Names of the tables and indexes the schema creates. */
  List<String> objects() {
    List<String> out = new ArrayList<>();
    out.add(name);
    for (String q : ddl) {
      if (q.contains(" INDEX ")) {
        String rest = q.substring(q.indexOf(" INDEX ") + 7);
        out.add(rest.substring(0, rest.indexOf(' ')));
      }
    }
    return out;
  }

  String insert(int rows) {
    StringBuilder b = new StringBuilder("INSERT INTO ").append(name).append('(');
    b.append(String.join(",", columns)).append(") VALUES ");
    for (int r = 0; r < rows; r++) {
      if (r > 0) {
        b.append(',');
      }
      b.append('(');
      for (int c = 0; c < columns.length; c++) {
        if (c > 0) {
          b.append(',');
        }
        b.append('?');
      }
      b.append(')');
    }
    return b.toString();
  }

  String update() {
    StringBuilder b = new StringBuilder("UPDATE ").append(name).append(" SET ");
    for (int i = 0; i < updateCols.length; i++) {
      if (i > 0) {
        b.append(", ");
      }
      b.append(updateCols[i]).append(" = ?");
    }
    return b.append(" WHERE ").append(keyCol).append(" = ?").toString();
  }

  String upsert() {
    StringBuilder b = new StringBuilder(insert(1));
    b.append(" ON CONFLICT(").append(keyCol).append(") DO UPDATE SET ");
    for (int i = 0; i < updateCols.length; i++) {
      if (i > 0) {
        b.append(", ");
      }
      b.append(updateCols[i]).append(" = excluded.").append(updateCols[i]);
    }
    return b.toString();
  }

  String select() {
    return "SELECT " + String.join(",", columns) + " FROM " + name + " WHERE " + keyCol + " = ?";
  }

  String tableExists() {
    return "SELECT count(*) FROM sqlite_master WHERE type='table' AND name='" + name.replace("'", "''") + "'";
  }

  static final long T0_NS = 1704067200L * 1_000_000_000L; // 2024-01-01T00:00:00Z
  static final int PAGE_BODY_SIZE = 5400;

  static final String[] NAMES = {
    "Ada", "Alan", "Barbara", "Claude", "Donald", "Edsger", "Frances", "Grace", "John", "Ken", "Leslie",
    "Margaret", "Niklaus", "Radia", "Tony", "Barbara"
  };

  /** The built-in schemas by name. */
  static final Map<String, Schema> ALL = new LinkedHashMap<>();

  static {
    add(
        new Schema(
            "bench",
            new String[] {"CREATE TABLE bench(ID int PRIMARY KEY, rand TEXT, hash TEXT)"},
            new String[] {"rand", "hash"},
            new Columns.Seq("ID", 0),
            new Columns.Hex("rand", 8, 0),
            new Columns.Sha256Of("hash", "rand", true)));
    add(
        new Schema(
            "users",
            new String[] {
              "CREATE TABLE users(id BLOB PRIMARY KEY NOT NULL, created_at TEXT NOT NULL, username TEXT NOT NULL)",
              "CREATE UNIQUE INDEX idx_users_on_id ON users(id)"
            },
            new String[] {"created_at", "username"},
            new Columns.UUID4("id", 0),
            new Columns.Timestamp("created_at", T0_NS, 1_000_000L, true),
            new Columns.Const("username", "Someone")));
    add(
        new Schema(
            "account",
            new String[] {
              "CREATE TABLE account(id INTEGER PRIMARY KEY, email TEXT NOT NULL UNIQUE, name TEXT NOT NULL,"
                  + " description TEXT, created_at INTEGER NOT NULL, version INTEGER)",
              "CREATE INDEX account_name ON account(name)"
            },
            new String[] {"name", "description"},
            new Columns.Seq("id", 1),
            new Columns.SeqText("email", "user", 1, "@example.com"),
            new Columns.Choice("name", NAMES, 2, " ", 0),
            new Columns.Text("description", 64, 127, 0),
            new Columns.Timestamp("created_at", T0_NS, 1_000_000L, false),
            new Columns.ConstInt("version", 1)));
    add(
        new Schema(
            "foo",
            new String[] {"CREATE TABLE foo(id INTEGER PRIMARY KEY NOT NULL, name TEXT)"},
            new String[] {"name"},
            new Columns.Seq("id", 1),
            new Columns.Letters("name", 30, 0)));
    add(
        new Schema(
            "pages",
            new String[] {"CREATE TABLE pages(id INTEGER PRIMARY KEY, body TEXT)"},
            new String[] {"body"},
            new Columns.Seq("id", 1),
            new Columns.Text("body", PAGE_BODY_SIZE, PAGE_BODY_SIZE, 0)));
  }

  private static void add(Schema s) {
    ALL.put(s.name, s);
  }

  /** Whether name (any case) is a table or index some schema creates. */
  static boolean isBenchObject(String name) {
    for (Schema s : ALL.values()) {
      for (String o : s.objects()) {
        if (o.equalsIgnoreCase(name)) {
          return true;
        }
      }
    }
    return false;
  }
}
