import { useState, type ComponentType } from 'react';
import { EditPanel } from '../edit-assistant';
import { AgentPanel } from '../agent';
import { useCommands } from '../commands';

interface RailTab {
  id: string;
  label: string;
  /** Renders its own landmark (a `complementary` region named after the panel). */
  component: ComponentType;
}

/** The right rail's tabs; plugging a panel in is one entry here. */
export const RAIL_TABS: RailTab[] = [
  { id: 'edit', label: 'Edit', component: EditPanel },
  { id: 'agent', label: 'Agent', component: AgentPanel },
];

/** The right rail: tabs over the assistant panels. Inactive panels unmount; their state lives in stores. */
export function RightRail() {
  const [selected, setSelected] = useState(RAIL_TABS[0].id);
  const current = RAIL_TABS.find((t) => t.id === selected) ?? RAIL_TABS[0];
  const Panel = current.component;
  useCommands(
    RAIL_TABS.map((tab) => ({
      id: `view.rail.${tab.id}`,
      title: `Show the ${tab.label} panel`,
      category: 'View',
      run: () => setSelected(tab.id),
    })),
  );
  const focusTab = (index: number) => {
    const tab = RAIL_TABS[(index + RAIL_TABS.length) % RAIL_TABS.length];
    setSelected(tab.id);
    document.getElementById(`rail-tab-${tab.id}`)?.focus();
  };
  return (
    <div className="right-rail">
      <div className="rail-tabs" role="tablist" aria-label="Assistant panels">
        {RAIL_TABS.map((tab, index) => (
          <button
            key={tab.id}
            id={`rail-tab-${tab.id}`}
            type="button"
            role="tab"
            aria-selected={tab.id === current.id}
            aria-controls={`rail-panel-${tab.id}`}
            tabIndex={tab.id === current.id ? 0 : -1}
            className={`rail-tab${tab.id === current.id ? ' active' : ''}`}
            onClick={() => setSelected(tab.id)}
            onKeyDown={(e) => {
              if (e.key === 'ArrowRight') focusTab(index + 1);
              else if (e.key === 'ArrowLeft') focusTab(index - 1);
            }}
          >
            {tab.label}
          </button>
        ))}
      </div>
      <div
        className="rail-panel"
        role="tabpanel"
        id={`rail-panel-${current.id}`}
        aria-labelledby={`rail-tab-${current.id}`}
      >
        <Panel />
      </div>
    </div>
  );
}
