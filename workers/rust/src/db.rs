//! The client side: rusqlite connections in a pool with the Go direct
//! clients' semantics (internal/target: a pool of connections, each with
//! its prepared statements; a transaction pins one connection), and the
//! application-side policy every workload gets alike (pool size, a
//! connection per operation, a single writer connection, a write mutex,
//! prepared or ad hoc statements, busy retries).

use rusqlite::{Connection, OpenFlags, Statement};
use std::sync::atomic::{
    AtomicBool, AtomicI64, AtomicPtr, Ordering::Acquire, Ordering::Relaxed, Ordering::Release,
};
use std::sync::{Arc, Condvar, Mutex};

/// An error of a statement or of the client.
#[derive(Debug)]
pub enum DbError {
    Sql(rusqlite::Error),
    /// Not SQLite's: a fatal problem of the workload (e.g. a hash mismatch).
    Other(String),
}

impl From<rusqlite::Error> for DbError {
    fn from(e: rusqlite::Error) -> DbError {
        DbError::Sql(e)
    }
}

impl From<rusqlite::types::FromSqlError> for DbError {
    fn from(e: rusqlite::types::FromSqlError) -> DbError {
        DbError::Other(e.to_string())
    }
}

impl std::fmt::Display for DbError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DbError::Sql(e) => write!(f, "{e}"),
            DbError::Other(s) => f.write_str(s),
        }
    }
}

/// Binds a statement's parameters.
pub type BindFn<'a> = &'a mut dyn FnMut(&mut Statement<'_>) -> rusqlite::Result<()>;

/// Receives each row of a query.
pub type RowFn<'a> = &'a mut dyn FnMut(&rusqlite::Row<'_>) -> Result<(), DbError>;

/// The kind of a failed statement, as internal/engine names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrClass {
    Busy,
    Locked,
    Constraint,
    Conn,
    Interrupted,
    Other,
}

impl ErrClass {
    pub fn name(self) -> &'static str {
        match self {
            ErrClass::Busy => "busy",
            ErrClass::Locked => "locked",
            ErrClass::Constraint => "constraint",
            ErrClass::Conn => "connection",
            ErrClass::Interrupted => "interrupted",
            ErrClass::Other => "other",
        }
    }

    /// Whether the same work may succeed if tried again.
    pub fn retryable(self) -> bool {
        matches!(self, ErrClass::Busy | ErrClass::Locked)
    }

    /// Whether an error of this class makes a run's numbers meaningless.
    pub fn fatal(self) -> bool {
        matches!(self, ErrClass::Conn | ErrClass::Other)
    }
}

/// Classifies by SQLite's primary result code.
pub fn classify(e: &DbError) -> ErrClass {
    match e {
        DbError::Sql(rusqlite::Error::SqliteFailure(f, _)) => match f.extended_code & 0xff {
            5 => ErrClass::Busy,
            6 => ErrClass::Locked,
            19 => ErrClass::Constraint,
            14 => ErrClass::Conn,
            9 => ErrClass::Interrupted,
            _ => ErrClass::Other,
        },
        _ => ErrClass::Other,
    }
}

/// Where and how connections are opened.
#[derive(Clone, Debug)]
pub struct Endpoint {
    /// SQLite URI filename.
    pub uri: String,
    pub in_memory: bool,
    /// Statements run on every new connection, in order.
    pub init: Vec<String>,
}

/// One connection with its prepared statements (by statement id).
pub struct Conn {
    // Declared before db, so dropped (finalized) before it.
    stmts: Vec<Option<Statement<'static>>>,
    db: Box<Connection>,
}

// SAFETY: a Conn moves between threads as a whole (the pool hands it to one
// thread at a time), and SQLite runs in multi-thread mode, which allows a
// connection and its statements to be used from any one thread at a time.
unsafe impl Send for Conn {}

impl Drop for Conn {
    fn drop(&mut self) {
        self.stmts.clear();
    }
}

impl Conn {
    fn open(ep: &Endpoint) -> Result<Conn, DbError> {
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_URI
            | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let db = Connection::open_with_flags(&ep.uri, flags)?;
        for p in &ep.init {
            db.execute_batch(p)
                .map_err(|e| DbError::Other(format!("{p}: {e}")))?;
        }
        Ok(Conn {
            stmts: Vec::new(),
            db: Box::new(db),
        })
    }

    pub fn db(&self) -> &Connection {
        &self.db
    }

    /// The connection's prepared copy of s, prepared on first use.
    #[inline]
    pub fn stmt(&mut self, s: &Stmt) -> Result<&mut Statement<'static>, DbError> {
        if !matches!(self.stmts.get(s.id), Some(Some(_))) {
            self.prepare(s)?;
        }
        Ok(self.stmts[s.id].as_mut().expect("prepared"))
    }

    #[inline(never)]
    fn prepare(&mut self, s: &Stmt) -> Result<(), DbError> {
        if self.stmts.len() <= s.id {
            self.stmts.resize_with(s.id + 1, || None);
        }
        let st = self.db.prepare(&s.sql)?;
        // SAFETY: the statement borrows the boxed connection, whose
        // address never changes, and is dropped before it (see Drop and
        // the field order); it never leaves this Conn.
        let st: Statement<'static> = unsafe { std::mem::transmute(st) };
        self.stmts[s.id] = Some(st);
        Ok(())
    }

    fn forget(&mut self, id: usize) {
        if let Some(slot) = self.stmts.get_mut(id) {
            *slot = None;
        }
    }

    /// Runs s, prepared (cached) or ad hoc, with bind binding its
    /// parameters and each row handed to row (None: rows are not wanted).
    /// Generic, so that a caller's closures are inlined on the hot path.
    #[inline]
    pub fn run<B, R>(
        &mut self,
        s: &Stmt,
        prepared: bool,
        bind: B,
        row: Option<R>,
    ) -> Result<(), DbError>
    where
        B: FnMut(&mut Statement<'_>) -> rusqlite::Result<()>,
        R: FnMut(&rusqlite::Row<'_>) -> Result<(), DbError>,
    {
        if prepared {
            let st = self.stmt(s)?;
            run_stmt(st, bind, row)
        } else {
            let mut st = self.db.prepare(&s.sql)?;
            run_stmt(&mut st, bind, row)
        }
    }

    /// Runs plain SQL (BEGIN, COMMIT, a pragma): one step.
    pub fn exec_script(&self, sql: &str) -> Result<(), DbError> {
        Ok(self.db.execute_batch(sql)?)
    }
}

#[inline]
fn run_stmt<B, R>(st: &mut Statement<'_>, mut bind: B, row: Option<R>) -> Result<(), DbError>
where
    B: FnMut(&mut Statement<'_>) -> rusqlite::Result<()>,
    R: FnMut(&rusqlite::Row<'_>) -> Result<(), DbError>,
{
    bind(st)?;
    match row {
        None => {
            st.raw_execute()?;
        }
        Some(mut f) => {
            let mut rows = st.raw_query();
            while let Some(r) = rows.next()? {
                f(r)?;
            }
        }
    }
    Ok(())
}

struct PoolState {
    #[allow(clippy::vec_box)] // boxed: idle connections also pass through the atomic slot
    idle: Vec<Box<Conn>>,
    busy: usize,
    waiters: usize,
}

/// A pool of connections to one database.
pub struct Pool {
    ep: Endpoint,
    max_open: usize,
    conn_per_op: bool,
    /// An unlimited pool keeps one idle connection in an atomic slot, so
    /// that a worker that borrows and returns one per statement takes no
    /// lock; the others wait in st.
    fast: bool,
    hot: AtomicPtr<Conn>,
    closed: AtomicBool,
    st: Mutex<PoolState>,
    cv: Condvar,
    keep: Mutex<Option<Box<Conn>>>,
    opened: AtomicI64,
}

impl Pool {
    /// Opens the pool and one connection now (it surfaces open errors and,
    /// for an in-memory database, keeps the database alive).
    pub fn open(ep: Endpoint, max_open: usize, conn_per_op: bool) -> Result<Arc<Pool>, DbError> {
        let p = Arc::new(Pool {
            ep,
            max_open,
            conn_per_op,
            fast: max_open == 0 && !conn_per_op,
            hot: AtomicPtr::new(std::ptr::null_mut()),
            closed: AtomicBool::new(false),
            st: Mutex::new(PoolState {
                idle: Vec::new(),
                busy: 0,
                waiters: 0,
            }),
            cv: Condvar::new(),
            keep: Mutex::new(None),
            opened: AtomicI64::new(0),
        });
        let c = p.connect()?;
        if p.ep.in_memory {
            *p.keep.lock().expect("pool lock") = Some(c);
        } else {
            p.st.lock().expect("pool lock").idle.push(c);
        }
        Ok(p)
    }

    fn connect(&self) -> Result<Box<Conn>, DbError> {
        let c = Box::new(Conn::open(&self.ep)?);
        self.opened.fetch_add(1, Relaxed);
        Ok(c)
    }

    pub fn opened(&self) -> i64 {
        self.opened.load(Relaxed)
    }

    /// The connection in the atomic slot, if any.
    #[inline]
    fn take_hot(&self) -> Option<Box<Conn>> {
        let p = self.hot.swap(std::ptr::null_mut(), Acquire);
        // SAFETY: the slot only ever holds a pointer from Box::into_raw,
        // and the swap hands it to this caller alone.
        (!p.is_null()).then(|| unsafe { Box::from_raw(p) })
    }

    /// Borrows a connection, opening one when none is idle; with a pool
    /// size, waits for a free slot first.
    #[inline]
    pub fn get(&self) -> Result<Box<Conn>, DbError> {
        if self.fast {
            if let Some(c) = self.take_hot() {
                return Ok(c);
            }
        }
        self.get_slow()
    }

    #[inline(never)]
    fn get_slow(&self) -> Result<Box<Conn>, DbError> {
        let mut st = self.st.lock().expect("pool lock");
        if self.max_open > 0 {
            while st.busy >= self.max_open {
                st.waiters += 1;
                st = self.cv.wait(st).expect("pool lock");
                st.waiters -= 1;
            }
            st.busy += 1;
        }
        if self.closed.load(Relaxed) {
            drop(st);
            self.release(None);
            return Err(DbError::Other("database is closed".into()));
        }
        if let Some(c) = st.idle.pop() {
            return Ok(c);
        }
        drop(st);
        self.connect().inspect_err(|_| self.release(None))
    }

    /// Returns a connection (closing it under conn-per-op).
    #[inline]
    pub fn put(&self, c: Box<Conn>) {
        if self.fast && !self.closed.load(Relaxed) {
            let raw = Box::into_raw(c);
            match self
                .hot
                .compare_exchange(std::ptr::null_mut(), raw, Release, Relaxed)
            {
                Ok(_) => return,
                // SAFETY: raw came from Box::into_raw just above and was
                // not published.
                Err(_) => return self.release(Some(unsafe { Box::from_raw(raw) })),
            }
        }
        self.release(Some(c))
    }

    fn release(&self, c: Option<Box<Conn>>) {
        let mut st = self.st.lock().expect("pool lock");
        if self.max_open > 0 {
            st.busy -= 1;
        }
        let close = match c {
            Some(c) if self.conn_per_op || self.closed.load(Relaxed) => Some(c),
            Some(c) => {
                st.idle.push(c);
                None
            }
            None => None,
        };
        let wake = st.waiters > 0;
        drop(st);
        if wake {
            self.cv.notify_one();
        }
        drop(close);
    }

    /// Runs f on a borrowed connection.
    #[inline]
    pub fn with_conn<R>(
        &self,
        f: impl FnOnce(&mut Conn) -> Result<R, DbError>,
    ) -> Result<R, DbError> {
        let mut c = self.get()?;
        let r = f(&mut c);
        self.put(c);
        r
    }

    /// Plain SQL on a borrowed connection.
    pub fn exec(&self, sql: &str) -> Result<(), DbError> {
        self.with_conn(|c| c.exec_script(sql))
    }

    /// The first column of every row of sql, as text.
    pub fn strings(&self, sql: &str) -> Result<Vec<String>, DbError> {
        self.with_conn(|c| {
            let mut st = c.db().prepare(sql)?;
            let mut rows = st.raw_query();
            let mut out = Vec::new();
            while let Some(r) = rows.next()? {
                out.push(match r.get_ref(0)? {
                    rusqlite::types::ValueRef::Text(t) => String::from_utf8_lossy(t).into_owned(),
                    rusqlite::types::ValueRef::Integer(i) => i.to_string(),
                    rusqlite::types::ValueRef::Real(f) => f.to_string(),
                    rusqlite::types::ValueRef::Blob(b) => String::from_utf8_lossy(b).into_owned(),
                    rusqlite::types::ValueRef::Null => String::new(),
                });
            }
            Ok(out)
        })
    }

    /// One integer: the first column of the first row of sql.
    pub fn int(&self, sql: &str) -> Result<i64, DbError> {
        self.with_conn(|c| Ok(c.db().query_row(sql, [], |r| r.get::<_, i64>(0))?))
    }

    /// Finalizes statement id on the connections not in use (a statement
    /// a workload is done with: prepared statements hold the connection's
    /// lookaside memory, which the statements that follow need).
    pub fn forget(&self, id: usize) {
        let mut st = self.st.lock().expect("pool lock");
        // The slot's connection goes to the idle list under the lock: a
        // borrower that finds the slot empty meanwhile waits for the lock
        // and finds it there, instead of opening another connection.
        if let Some(c) = self.take_hot() {
            st.idle.push(c);
        }
        for c in st.idle.iter_mut() {
            c.forget(id);
        }
        drop(st);
        if let Some(c) = self.keep.lock().expect("pool lock").as_mut() {
            c.forget(id);
        }
    }

    pub fn close(&self) {
        self.closed.store(true, Relaxed);
        drop(self.take_hot());
        let idle = std::mem::take(&mut self.st.lock().expect("pool lock").idle);
        drop(idle);
        drop(self.keep.lock().expect("pool lock").take());
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        drop(self.take_hot());
    }
}

/// A statement of a session: its SQL, its id in every connection's cache
/// and the pool it runs on.
pub struct Stmt {
    pub id: usize,
    pub sql: Arc<str>,
    pub pool: Arc<Pool>,
}

impl Stmt {
    /// Finalizes the statement on the pool's idle connections (it is
    /// prepared again if it is used again).
    pub fn close(&self) {
        self.pool.forget(self.id);
    }
}

/// The application-side settings.
#[derive(Clone, Debug)]
pub struct Policy {
    pub max_open: usize,
    pub conn_per_op: bool,
    pub tx_immediate: bool,
    pub prepared: bool,
    pub single_writer: bool,
    pub write_mutex: bool,
    /// How often a busy write is tried again: -1 until it succeeds.
    pub retries: i64,
}

/// A lock held across calls (the write mutex, from BEGIN to COMMIT).
#[derive(Default)]
struct HeldLock {
    held: Mutex<bool>,
    cv: Condvar,
}

impl HeldLock {
    fn lock(&self) {
        let mut h = self.held.lock().expect("write mutex");
        while *h {
            h = self.cv.wait(h).expect("write mutex");
        }
        *h = true;
    }

    fn unlock(&self) {
        *self.held.lock().expect("write mutex") = false;
        self.cv.notify_one();
    }
}

/// What the views of one session share.
pub struct Pools {
    ep: Endpoint,
    reads: Arc<Pool>,
    writer: Mutex<Option<Arc<Pool>>>,
    wmu: HeldLock,
    sql: Mutex<Vec<Arc<str>>>,
}

/// A workload's view of its database: the pools and the policy.
pub struct Session {
    pools: Arc<Pools>,
    pub policy: Policy,
}

impl Session {
    pub fn open(ep: Endpoint, policy: Policy) -> Result<Session, DbError> {
        let reads = Pool::open(ep.clone(), policy.max_open, policy.conn_per_op)?;
        Ok(Session {
            pools: Arc::new(Pools {
                ep,
                reads,
                writer: Mutex::new(None),
                wmu: HeldLock::default(),
                sql: Mutex::new(Vec::new()),
            }),
            policy,
        })
    }

    /// The view for loading data before the measured part: prepared,
    /// retried until done, on the pool, no single writer or write mutex.
    pub fn setup_view(&self) -> Session {
        Session {
            pools: self.pools.clone(),
            policy: Policy {
                prepared: true,
                single_writer: false,
                write_mutex: false,
                retries: -1,
                ..self.policy.clone()
            },
        }
    }

    /// The pool (set-up statements and ad hoc queries).
    pub fn db(&self) -> &Arc<Pool> {
        &self.pools.reads
    }

    pub fn opened_conns(&self) -> i64 {
        let mut n = self.pools.reads.opened();
        if let Some(w) = &*self.pools.writer.lock().expect("writer lock") {
            n += w.opened();
        }
        n
    }

    pub fn close(&self) {
        if let Some(w) = &*self.pools.writer.lock().expect("writer lock") {
            w.close();
        }
        self.pools.reads.close();
    }

    /// The pool writes go to: the single writer's (opened the first time)
    /// or the shared one.
    pub fn writes(&self) -> Result<Arc<Pool>, DbError> {
        if !self.policy.single_writer {
            return Ok(self.pools.reads.clone());
        }
        let mut w = self.pools.writer.lock().expect("writer lock");
        if let Some(p) = &*w {
            return Ok(p.clone());
        }
        let p = Pool::open(self.pools.ep.clone(), 1, false)
            .map_err(|e| DbError::Other(format!("opening the single writer connection: {e}")))?;
        *w = Some(p.clone());
        Ok(p)
    }

    /// Readies sql for reads (the pool) or writes (the writer's pool):
    /// prepared once on a connection now when the policy prepares.
    pub fn prepare(&self, sql: &str, write: bool) -> Result<Stmt, DbError> {
        let pool = if write {
            self.writes()?
        } else {
            self.pools.reads.clone()
        };
        let (id, sql) = {
            let mut reg = self.pools.sql.lock().expect("statement registry");
            match reg.iter().position(|s| &**s == sql) {
                Some(i) => (i, reg[i].clone()),
                None => {
                    reg.push(Arc::from(sql));
                    (reg.len() - 1, reg[reg.len() - 1].clone())
                }
            }
        };
        let st = Stmt { id, sql, pool };
        if self.policy.prepared {
            st.pool.with_conn(|c| c.stmt(&st).map(|_| ()))?;
        }
        Ok(st)
    }

    /// Whether work that failed with e after `retries` retries is tried
    /// again under the busy-retry policy.
    pub fn again(&self, e: &DbError, retries: i64) -> bool {
        classify(e).retryable() && (self.policy.retries < 0 || retries < self.policy.retries)
    }

    /// Runs a read statement on its pool.
    #[inline]
    pub fn query<B, R>(&self, st: &Stmt, bind: B, row: R) -> Result<(), DbError>
    where
        B: FnMut(&mut Statement<'_>) -> rusqlite::Result<()>,
        R: FnMut(&rusqlite::Row<'_>) -> Result<(), DbError>,
    {
        let prepared = self.policy.prepared;
        st.pool.with_conn(|c| c.run(st, prepared, bind, Some(row)))
    }

    pub fn writer(&self) -> Writer<'_> {
        Writer {
            s: self,
            tx: None,
            locked: false,
            read: false,
        }
    }

    /// A worker's read-only transactions: on the pool, outside the write
    /// policy (no single writer, no write mutex); BEGIN as the tx setting
    /// says, as the Go clients begin every transaction.
    pub fn reader(&self) -> Writer<'_> {
        Writer {
            s: self,
            tx: None,
            locked: false,
            read: true,
        }
    }
}

/// One worker's writes under the session's write policy: on the writer's
/// pool, behind the write mutex when there is one (held from BEGIN to
/// COMMIT or ROLLBACK, or for one autocommit statement).
pub struct Writer<'s> {
    s: &'s Session,
    tx: Option<(Box<Conn>, Arc<Pool>)>,
    locked: bool,
    read: bool,
}

impl Writer<'_> {
    fn lock(&mut self) {
        if self.s.policy.write_mutex && !self.locked && !self.read {
            self.s.pools.wmu.lock();
            self.locked = true;
        }
    }

    fn unlock(&mut self) {
        if self.locked {
            self.locked = false;
            self.s.pools.wmu.unlock();
        }
    }

    pub fn begin(&mut self) -> Result<(), DbError> {
        if self.tx.is_some() {
            return Err(DbError::Other("a transaction is already open".into()));
        }
        self.lock();
        let pool = if self.read {
            Ok(self.s.db().clone())
        } else {
            self.s.writes()
        };
        let r = pool.and_then(|p| {
            let c = p.get()?;
            let begin = if self.s.policy.tx_immediate {
                "BEGIN IMMEDIATE"
            } else {
                "BEGIN"
            };
            match c.exec_script(begin) {
                Ok(()) => Ok((c, p)),
                Err(e) => {
                    p.put(c);
                    Err(e)
                }
            }
        });
        match r {
            Ok(t) => {
                self.tx = Some(t);
                Ok(())
            }
            Err(e) => {
                self.unlock();
                Err(e)
            }
        }
    }

    /// Runs st: in the open transaction, or on its own (autocommit).
    pub fn exec(&mut self, st: &Stmt, bind: BindFn<'_>) -> Result<(), DbError> {
        let prepared = self.s.policy.prepared;
        match &mut self.tx {
            Some((c, _)) => c.run(st, prepared, bind, None::<RowFn<'_>>),
            None => {
                self.lock();
                let r = st
                    .pool
                    .with_conn(|c| c.run(st, prepared, bind, None::<RowFn<'_>>));
                self.unlock();
                r
            }
        }
    }

    /// The open transaction's prepared copy of st, to bind and run many
    /// times directly (as exec runs it there); None without a transaction
    /// or when statements are not prepared.
    pub fn tx_stmt(&mut self, st: &Stmt) -> Result<Option<&mut Statement<'static>>, DbError> {
        match &mut self.tx {
            Some((c, _)) if self.s.policy.prepared => c.stmt(st).map(Some),
            _ => Ok(None),
        }
    }

    /// Runs st with each row handed to row: in the open transaction, or
    /// on its own pool (a write behind the write mutex).
    pub fn query(&mut self, st: &Stmt, bind: BindFn<'_>, row: RowFn<'_>) -> Result<(), DbError> {
        let prepared = self.s.policy.prepared;
        match &mut self.tx {
            Some((c, _)) => c.run(st, prepared, bind, Some(row)),
            None => {
                self.lock();
                let r = st.pool.with_conn(|c| c.run(st, prepared, bind, Some(row)));
                self.unlock();
                r
            }
        }
    }

    /// Whether a transaction is open.
    pub fn in_tx(&self) -> bool {
        self.tx.is_some()
    }

    pub fn commit(&mut self) -> Result<(), DbError> {
        self.end(true)
    }

    pub fn rollback(&mut self) -> Result<(), DbError> {
        self.end(false)
    }

    fn end(&mut self, commit: bool) -> Result<(), DbError> {
        let Some((c, p)) = self.tx.take() else {
            return Err(DbError::Other("no transaction is open".into()));
        };
        let r = if commit {
            let r = c.exec_script("COMMIT");
            if r.is_err() {
                // A failed COMMIT (SQLITE_BUSY) leaves the transaction
                // open: roll back so the connection goes back clean.
                let _ = c.exec_script("ROLLBACK");
            }
            r
        } else {
            c.exec_script("ROLLBACK")
        };
        p.put(c);
        self.unlock();
        r
    }
}

impl Drop for Writer<'_> {
    fn drop(&mut self) {
        if self.tx.is_some() {
            let _ = self.rollback();
        }
    }
}
