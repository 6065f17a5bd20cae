//! `pocket demo`: the main job on the default models. Until the voice loop lands (issue 6) it
//! runs the most complete part that works: fetching and verifying the default models.

use anyhow::Result;
use clap::Args;
use pocket_assets::Store;

#[derive(Args)]
pub struct DemoArgs {}

pub fn run(_args: DemoArgs) -> Result<()> {
    let store = Store::open_default()?;
    super::assets::fetch(
        &store,
        &super::assets::FetchArgs {
            sets: vec!["default".into()],
            ids: vec![],
            quiet: false,
        },
    )?;
    for asset in store.manifest().set("default")? {
        if asset.for_this_platform() {
            println!("{:<30} {}", asset.id, store.require(&asset.id)?.display());
        }
    }
    println!("The default models are installed and verified.");
    Ok(())
}
