package litebench.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.eclipsesource.json.Json;
import com.eclipsesource.json.JsonArray;
import com.eclipsesource.json.JsonObject;
import com.eclipsesource.json.JsonValue;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The generators against the Go reference values:
 * internal/gen/testdata/vectors.json (docs/data-generation.md §9) and the
 * built-in schemas' rows in internal/workload/testdata/rows.json.
 */
class VectorsTest {
  /** The repository's root, two levels above workers/java. */
  static Path repo() {
    return Paths.get("").toAbsolutePath().getParent().getParent();
  }

  static JsonObject load(String rel) throws IOException {
    return Json.parse(Files.readString(repo().resolve(rel), StandardCharsets.UTF_8)).asObject();
  }

  static long u64(JsonValue v) {
    return Long.parseUnsignedLong(v.asString());
  }

  static double bits(String hex) {
    return Double.longBitsToDouble(Long.parseUnsignedLong(hex, 16));
  }

  static String hex(double d) {
    return String.format("%016x", Double.doubleToRawLongBits(d));
  }

  @Test
  void drawsAndSplitmix() throws IOException {
    for (JsonValue sv : load("internal/gen/testdata/vectors.json").get("seeds").asArray()) {
      JsonObject s = sv.asObject();
      long seed = u64(s.get("seed"));
      JsonArray draws = s.get("draw").asArray();
      for (int k = 0; k < draws.size(); k++) {
        assertEquals(u64(draws.get(k)), Gen.draw(seed, 0, k), "draw " + k);
      }
      Gen.SplitMix sm = new Gen.SplitMix(seed);
      JsonArray seq = s.get("splitmix").asArray();
      for (int k = 0; k < seq.size(); k++) {
        assertEquals(u64(seq.get(k)), sm.next(), "splitmix " + k);
      }
    }
  }

  @Test
  void math() throws IOException {
    for (JsonValue mv : load("internal/gen/testdata/vectors.json").get("math").asArray()) {
      String fn = mv.asObject().getString("fn", "");
      for (JsonValue io : mv.asObject().get("in_out").asArray()) {
        String[] in = io.asArray().get(0).asString().split(" ");
        String want = io.asArray().get(1).asString();
        double x = bits(in[0]);
        double got;
        switch (fn) {
          case "exp":
            got = Gen.exp(x);
            break;
          case "log":
            got = Gen.log(x);
            break;
          case "log1p":
            got = Gen.log1p(x);
            break;
          default:
            got = Gen.pow(x, bits(in[1]));
        }
        assertEquals(want, hex(got), fn + " " + String.join(" ", in));
      }
    }
  }

  @Test
  void zipfians() throws IOException {
    for (JsonValue zv : load("internal/gen/testdata/vectors.json").get("zipf").asArray()) {
      JsonObject z = zv.asObject();
      Gen.Zipf g = new Gen.Zipf(z.get("n").asLong(), z.get("theta").asDouble());
      String at = "zipf n " + z.get("n") + " theta " + z.get("theta");
      assertEquals(z.getString("zetan", ""), hex(g.zetan), at + " zetan");
      assertEquals(z.getString("half", ""), hex(g.half), at + " half");
      assertEquals(z.getString("alpha", ""), hex(g.alpha), at + " alpha");
      assertEquals(z.getString("eta", ""), hex(g.eta), at + " eta");
    }
  }

  /** A generator from its description in vectors.json. */
  static Columns.Col column(JsonObject c) {
    return Columns.fromJson(c.getString("name", ""), c.getString("kind", ""), c.get("args").asObject());
  }

  @Test
  void columns() throws IOException {
    JsonObject v = load("internal/gen/testdata/vectors.json");
    List<Columns.Col> cols = new ArrayList<>();
    for (JsonValue c : v.get("columns").asArray()) {
      cols.add(column(c.asObject()));
    }
    Columns.Table t = new Columns.Table(cols.toArray(new Columns.Col[0]));
    Columns.RowGen g = t.rowGen();
    int w = t.width();
    for (JsonValue sv : v.get("seeds").asArray()) {
      JsonObject s = sv.asObject();
      long seed = u64(s.get("seed"));
      JsonObject want = s.get("columns").asObject();
      int rows = want.get(cols.get(0).name).asArray().size();
      long[] ints = new long[w];
      String[] strs = new String[w];
      for (int i = 0; i < rows; i++) {
        g.row(seed, i, ints, strs, 0);
        for (int k = 0; k < w; k++) {
          String exp = want.get(cols.get(k).name).asArray().get(i).asString();
          String got = t.text[k] ? strs[k] : Long.toString(ints[k]);
          assertEquals(exp, got, "seed " + Long.toUnsignedString(seed) + " row " + i + " column " + cols.get(k).name);
          // A column alone gives the value the row gives.
          String alone = t.text[k] ? g.text(k, seed, i) : Long.toString(g.intValue(k, seed, i));
          assertEquals(exp, alone, "alone: row " + i + " column " + cols.get(k).name);
        }
      }
    }
  }

  @Test
  void keysOpsArrivals() throws IOException {
    for (JsonValue sv : load("internal/gen/testdata/vectors.json").get("seeds").asArray()) {
      JsonObject s = sv.asObject();
      long seed = u64(s.get("seed"));
      for (JsonValue kv : s.get("keys").asArray()) {
        JsonObject k = kv.asObject();
        long n = k.get("n").asLong();
        String dist = k.getString("dist", "");
        Gen.Zipf z = dist.equals("uniform") ? null : new Gen.Zipf(n, k.get("theta").asDouble());
        Gen.KeyGen g = new Gen.KeyGen(dist, z, seed, k.get("worker").asInt());
        JsonArray want = k.get("keys").asArray();
        for (int i = 0; i < want.size(); i++) {
          assertEquals(want.get(i).asLong(), g.next(n), dist + " n " + n + " key " + i);
        }
      }
      for (JsonValue ov : s.get("ops").asArray()) {
        double p = ov.asObject().get("write_percent").asDouble();
        String want = ov.asObject().getString("ops", "");
        StringBuilder got = new StringBuilder();
        for (int i = 0; i < want.length(); i++) {
          got.append(Gen.writeOp(seed, i, p) ? 'w' : 'r');
        }
        assertEquals(want, got.toString(), "ops at " + p + "%");
      }
      for (JsonValue av : s.get("arrivals").asArray()) {
        double rate = av.asObject().get("rate").asDouble();
        JsonArray want = av.asObject().get("due_ns").asArray();
        long due = 0;
        for (int i = 0; i < want.size(); i++) {
          if (i > 0) {
            due += Gen.poissonGap(rate, Gen.arrivalU(seed, i));
          }
          assertEquals(want.get(i).asLong(), due, "rate " + rate + " due " + i);
        }
      }
    }
  }

  @Test
  void schemaRows() throws Exception {
    JsonObject all = load("internal/workload/testdata/rows.json");
    long[] idx = {0, 1, 2, 3, 4, 1000, 123456, 4294967303L};
    MessageDigest sha = MessageDigest.getInstance("SHA-256");
    for (JsonObject.Member m : all) {
      Schema sc = Schema.ALL.get(m.getName());
      Columns.RowGen g = sc.gen.rowGen();
      for (JsonObject.Member seedRows : m.getValue().asObject()) {
        long seed = Long.parseUnsignedLong(seedRows.getName());
        JsonArray rows = seedRows.getValue().asArray();
        assertEquals(idx.length, rows.size());
        for (int r = 0; r < rows.size(); r++) {
          long[] ints = new long[sc.width()];
          String[] strs = new String[sc.width()];
          g.row(seed, idx[r], ints, strs, 0);
          for (int k = 0; k < sc.width(); k++) {
            String got;
            if (!sc.gen.text[k]) {
              got = "i:" + ints[k];
            } else {
              byte[] b = strs[k].getBytes(StandardCharsets.UTF_8);
              got = b.length > 256 ? "t#" + b.length + ":" + HexFormat.of().formatHex(sha.digest(b)) : "t:" + strs[k];
            }
            assertEquals(rows.get(r).asArray().get(k).asString(), got,
                sc.name + " seed " + seedRows.getName() + " row " + idx[r] + " column " + sc.columns[k]);
          }
        }
      }
    }
  }
}
