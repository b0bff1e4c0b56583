//! `NEW`, `AUTO` and `RESUME`: which files of a source a load takes after
//! earlier loads of it (see `mode.rs`).

use std::sync::Arc;

use super::{Format, InputFormat, LoadMode, LoadRequest, LoadState, LoadStatus, Loader};
use crate::db::{Database, DbConfig};
use nereid_values::Value;

fn people(db: &Arc<Database>) -> i64 {
    let mut result = db
        .run(None, "MATCH (p:P) RETURN count(p)", Default::default())
        .unwrap();
    let mut n = 0;
    result
        .pull(-1, &mut |row, _| {
            if let Value::Int(count) = row[0] {
                n = count;
            }
        })
        .unwrap();
    n
}

fn load(loader: &Loader, mode: LoadMode) -> LoadStatus {
    let request = LoadRequest {
        source: "file:///g".into(),
        format: InputFormat::Csv(Format::OpenCypher),
        fail_on_error: true,
        mode,
    };
    loader.run(request).unwrap()
}

#[test]
fn resuming_skips_the_files_earlier_loads_of_the_source_applied() {
    let dir = tempfile::tempdir().unwrap();
    let db = Database::open(&DbConfig::new(dir.path().join("data"), 2)).unwrap();
    let import = dir.path().join("import");
    let g = import.join("g");
    std::fs::create_dir_all(&g).unwrap();
    let loader = Loader::new(&db, &import, &dir.path().join("data").join("loads")).unwrap();
    let write = |name: &str, text: &str| std::fs::write(g.join(name), text).unwrap();

    // RESUME needs an earlier load of the source.
    let request = LoadRequest {
        source: "file:///g".into(),
        format: InputFormat::Csv(Format::OpenCypher),
        fail_on_error: true,
        mode: LoadMode::Resume,
    };
    let refused = loader.submit(request).unwrap_err();
    assert_eq!(refused.status, nereid_errors::Status::RequestInvalid);

    // A failed load applied nothing: resuming it takes every file again.
    write("a.csv", ":ID,:LABEL\n1,P\n2,P\n");
    write("b.csv", ":ID,:LABEL,n:int\n3,P,x\n");
    assert_eq!(load(&loader, LoadMode::New).state, LoadState::Failed);
    write("b.csv", ":ID,:LABEL,n:int\n3,P,3\n");
    let status = load(&loader, LoadMode::Resume);
    assert_eq!(status.state, LoadState::Completed, "{status:?}");
    assert_eq!((status.files_total, status.files_done), (2, 2));
    assert_eq!(people(&db), 3);

    // After a completed load, only the files added since.
    write("c.csv", ":ID,:LABEL\n4,P\n");
    let status = load(&loader, LoadMode::Auto);
    assert_eq!(status.state, LoadState::Completed, "{status:?}");
    assert_eq!((status.files_total, status.records), (1, 1));
    assert_eq!(people(&db), 4);
    let status = load(&loader, LoadMode::Resume);
    assert_eq!(status.state, LoadState::Completed, "{status:?}");
    assert_eq!((status.files_total, status.records), (0, 0));

    // NEW takes every file: the ids exist, so it fails and changes nothing.
    let status = load(&loader, LoadMode::New);
    assert_eq!(status.state, LoadState::Failed);
    assert_eq!(people(&db), 4);
    // What the source's loads applied is still known after it.
    let status = load(&loader, LoadMode::Auto);
    assert_eq!(
        (status.state, status.files_total),
        (LoadState::Completed, 0)
    );
}

#[test]
fn mode_names_are_neptunes() {
    for mode in [LoadMode::New, LoadMode::Auto, LoadMode::Resume] {
        assert_eq!(LoadMode::from_name(&mode.name().to_lowercase()), Some(mode));
    }
    assert_eq!(LoadMode::from_name("RESTART"), None);
}

#[test]
fn statuses_and_what_was_loaded_outlive_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let import = dir.path().join("import");
    let g = import.join("g");
    std::fs::create_dir_all(&g).unwrap();
    std::fs::write(g.join("a.csv"), ":ID,:LABEL\n1,P\n2,P\n").unwrap();
    let (completed, failed) = {
        let db = Database::open(&DbConfig::new(data.clone(), 2)).unwrap();
        let loader = Loader::new(&db, &import, &data.join("loads")).unwrap();
        let completed = load(&loader, LoadMode::New);
        assert_eq!(completed.state, LoadState::Completed);
        let failed = loader
            .run(LoadRequest {
                source: "file:///g/a.csv".into(),
                format: InputFormat::Csv(Format::OpenCypher),
                fail_on_error: true,
                mode: LoadMode::New,
            })
            .unwrap();
        assert_eq!(failed.state, LoadState::Failed, "the ids exist");
        db.shutdown();
        (completed, failed)
    };
    let db = Database::open(&DbConfig::new(data.clone(), 2)).unwrap();
    let loader = Loader::new(&db, &import, &data.join("loads")).unwrap();
    // Both loads answer with the status they ended with, listed first.
    let again = loader.status(&completed.id).expect("kept");
    assert_eq!(
        (again.state, again.files_done, again.records),
        (LoadState::Completed, 1, 2)
    );
    let again = loader.status(&failed.id).expect("kept");
    assert_eq!(again.state, LoadState::Failed);
    assert_eq!(
        again.failure.map(|f| f.status),
        failed.failure.map(|f| f.status)
    );
    assert_eq!(
        loader.list()[..2],
        [completed.id.clone(), failed.id.clone()]
    );
    // AUTO and RESUME know what the source's loads applied before.
    std::fs::write(g.join("b.csv"), ":ID,:LABEL\n3,P\n").unwrap();
    let status = load(&loader, LoadMode::Auto);
    assert_eq!(status.state, LoadState::Completed, "{status:?}");
    assert_eq!((status.files_total, status.records), (1, 1));
    assert_eq!(people(&db), 3);
    let status = load(&loader, LoadMode::Resume);
    assert_eq!(
        (status.state, status.files_total),
        (LoadState::Completed, 0)
    );
}
