package litebench.worker;

import com.eclipsesource.json.Json;
import com.eclipsesource.json.JsonArray;
import com.eclipsesource.json.JsonObject;
import com.eclipsesource.json.JsonValue;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.TimeUnit;

/**
 * The java-sqlite-jdbc worker: serves litebench's worker protocol
 * (docs/worker-protocol.md) on standard input and output. It answers hello,
 * sets up one job, runs it (emitting intervals and acks), sends the final
 * event and ends at close or at the end of its input. A cancel message, the
 * end of the input, SIGINT or SIGTERM stops a run in progress (its final
 * event then says interrupted). Logs go to standard error.
 */
public final class Main {
  private Main() {}

  static final int PROTOCOL = 1;
  static final String[] CAPS = {"closed_loop", "open_loop", "intervals", "acks", "digest", "in_memory", "program"};

  /** Writes events as JSON lines; safe for concurrent use. */
  static final class Lines implements Worker.Out {
    private final OutputStream out;

    Lines(OutputStream out) {
      this.out = out;
    }

    @Override
    public synchronized void send(JsonObject ev) {
      try {
        out.write(ev.toString().getBytes(StandardCharsets.UTF_8));
        out.write('\n');
        out.flush();
      } catch (IOException e) {
        // the controller is gone; the end of the input stops the worker
      }
    }
  }

  static Properties versions() {
    Properties p = new Properties();
    try (InputStream in = Main.class.getResourceAsStream("/litebench-worker.properties")) {
      if (in != null) {
        p.load(in);
      }
    } catch (IOException e) {
      // versions unknown
    }
    return p;
  }

  static JsonObject hello() {
    Properties v = versions();
    JsonArray caps = new JsonArray();
    for (String c : CAPS) {
      caps.add(c);
    }
    return new JsonObject().add("t", "hello").add("protocol", PROTOCOL)
        .add("lang", "java " + Runtime.version())
        .add("version", v.getProperty("worker.version", "dev"))
        .add("caps", caps)
        .add("target", Worker.TARGET)
        .add("driver", "org.xerial:sqlite-jdbc " + v.getProperty("sqlite-jdbc.version", "?"))
        .add("driver_version", v.getProperty("sqlite-jdbc.version", "?"))
        .add("pool", "com.zaxxer:HikariCP " + v.getProperty("hikaricp.version", "?"));
  }

  private static final JsonObject EOF = new JsonObject();

  public static void main(String[] args) throws Exception {
    System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
    System.setProperty("org.slf4j.simpleLogger.logFile", "System.err");
    if (args.length > 0) {
      System.err.println("usage: java -jar litebench-worker.jar (it reads the worker protocol's JSON lines on standard input;"
          + " see docs/worker-protocol.md)");
      System.exit(2);
    }
    PrintStream stdout = System.out;
    // Nothing but protocol lines goes to standard output.
    System.setOut(System.err);
    Lines out = new Lines(stdout);
    Db.Stop stop = new Db.Stop();
    Worker w = new Worker(stop);
    // SIGINT and SIGTERM stop a run as a cancel does: the JVM's shutdown
    // hook stops it and waits until its final event has gone out.
    CountDownLatch served = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      stop.stop();
      try {
        served.await(4, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        // exit now
      }
    }, "stop-on-signal"));
    // Messages arrive on a thread of their own, so that a cancel is seen
    // while a setup or run is in progress; the handoff queue delivers the
    // others one at a time, as the main loop asks for them.
    SynchronousQueue<JsonObject> msgs = new SynchronousQueue<>();
    Thread reader = new Thread(() -> read(out, stop, msgs), "protocol-reader");
    reader.setDaemon(true);
    reader.start();
    int code = serve(w, out, stop, msgs);
    w.close();
    served.countDown();
    System.exit(code);
  }

  private static void read(Lines out, Db.Stop stop, SynchronousQueue<JsonObject> msgs) {
    try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8), 1 << 16)) {
      String line;
      while ((line = in.readLine()) != null) {
        if (line.isEmpty()) {
          continue;
        }
        JsonObject ev;
        try {
          JsonValue v = Json.parse(line);
          ev = v.isObject() ? v.asObject() : null;
        } catch (RuntimeException e) {
          ev = null;
        }
        if (ev == null || ev.get("t") == null || !ev.get("t").isString()) {
          String shown = line.length() > 80 ? line.substring(0, 80) : line;
          out.send(error("worker protocol: bad message " + Text.quote(shown)));
          break;
        }
        if ("cancel".equals(ev.getString("t", ""))) {
          stop.stop();
          continue;
        }
        while (!msgs.offer(ev, 50, TimeUnit.MILLISECONDS)) {
          if (stop.stopped()) {
            return;
          }
        }
      }
    } catch (IOException | InterruptedException e) {
      // input gone
    }
    stop.stop(); // input gone: the controller is gone
    msgs.offer(EOF);
  }

  static JsonObject error(String msg) {
    return new JsonObject().add("t", "error").add("error", msg.replace('\n', ' '));
  }

  private static int serve(Worker w, Lines out, Db.Stop stop, SynchronousQueue<JsonObject> msgs) throws InterruptedException {
    for (; ; ) {
      if (stop.stopped()) {
        return 0;
      }
      JsonObject ev = msgs.poll(50, TimeUnit.MILLISECONDS);
      if (ev == null) {
        continue;
      }
      if (ev == EOF) {
        return 0;
      }
      String t = ev.getString("t", "");
      try {
        switch (t) {
          case "hello":
            int proto = ev.getInt("protocol", 0);
            if (proto != PROTOCOL) {
              out.send(error("worker protocol " + proto + " asked, this worker speaks " + PROTOCOL));
              return 1;
            }
            out.send(hello());
            break;
          case "setup":
            JsonValue job = ev.get("job");
            if (job == null || !job.isObject()) {
              out.send(error("setup without a job"));
              return 1;
            }
            out.send(w.setup(Worker.Job.of(job.asObject())));
            break;
          case "run":
            out.send(w.run(out));
            break;
          case "close":
            return 0;
          default:
            out.send(error("unexpected message " + Text.quote(t)));
            return 1;
        }
      } catch (Settings.BadJob e) {
        out.send(error(e.getMessage()));
        return 2;
      } catch (RuntimeException | Error e) {
        e.printStackTrace(); // a bug: the trace goes to standard error
        out.send(error(Db.message(e)));
        return 1;
      } catch (Exception e) {
        out.send(error(Db.message(e)));
        return 1;
      }
    }
  }
}
