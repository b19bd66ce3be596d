#pragma once
// Four stacked plots on one shared time axis, read from a SeriesStore:
//  1. outstanding subscribe requests per subscription (step; dashed "guard limit" at 1),
//  2. retry interval per subscription (step, seconds),
//  3. tag quality, stacked good / uncertain / bad — SUMMED over the visible subscriptions
//     (so with one subscription selected it is that subscription's own quality),
//  4. gateway load: STA queue depth (left axis), Invoke RPCs/s, DEADLINE_EXCEEDED/s and
//     suppressed calls/s (right axis), recovering / closed as translucent bands.
// A colour per subscription (fixed palette by instance; alarm subscriptions dash-dotted);
// clicking a legend entry hides / shows it. Follow-live shows the last windowSeconds();
// zooming or panning (wheel / drag, x only, all plots in step) pauses it; resetZoom() resumes.
// The store's appended() only marks the panel dirty: a timer replots at most 20 times a
// second (queued replot). Each graph holds only its visible time range, reduced per pair of
// pixel columns when denser than that (plot::ViewFeed), and is refilled only when its
// series or the view changed — replot cost follows the pixels, not the retained hour.

#include "models/series_store.h"
#include "ui/plot_data.h"
#include "ui/theme.h"

#include <QDateTime>
#include <QHash>
#include <QList>
#include <QMap>
#include <QPointF>
#include <QPointer>
#include <QSet>
#include <QSharedPointer>
#include <QSize>
#include <QString>
#include <QStringList>
#include <QTimer>
#include <QWidget>
#include <array>
#include <map>
#include <memory>
#include <optional>
#include <vector>

class QCustomPlot;
class QCPAxis;
class QCPAxisTickerTime;
class QVBoxLayout;
class QCPAxisRect;
class QCPGraph;
class QCPLegend;
class QCPItemStraightLine;
class QCPItemText;
class QCPAbstractLegendItem;
class QAction;
class QMouseEvent;
class QMenu;
class QSpinBox;
class QComboBox;
class QToolBar;

namespace stormwatch {

namespace plot {
class ViewFeed;
class QualityStack;
} // namespace plot

class PlotPanel : public QWidget {
    Q_OBJECT
public:
    enum class Plot { Outstanding, Interval, Quality, Gateway };
    static constexpr int kPlotCount = 4;
    static constexpr int kMaxReplotsPerSecond = 20;

    explicit PlotPanel(const SeriesStore* store, QWidget* parent = nullptr);
    ~PlotPanel() override;

    // Colours of the plots, legends, crosshair and exports (the window's theme; a new panel
    // takes currentTheme()).
    void setTheme(Theme theme);
    Theme theme() const { return m_theme; }
    // Presenter mode: fonts ×1.5, lines 2 px, no toolbar (a room reads it from afar).
    void setPresentation(bool on);
    bool presentation() const { return m_presentation; }
    QToolBar* toolBar() const { return m_toolBar; }

    // Which plots are drawn (all four by default): the others give their rows to the shown
    // ones, which keep their order; the time axis's labels go to the lowest shown plot and
    // the markers' labels to the top one. The last shown plot cannot be hidden (false).
    bool setPlotShown(Plot plot, bool shown);
    bool plotShown(Plot plot) const { return m_shown[std::size_t(plot)]; }
    // The same choice as a menu of checkable entries, one per plot: the toolbar's Plots
    // button opens it, and a view that hides the toolbar (the A/B view) puts its own button.
    QMenu* plotsMenu() const { return m_plotsMenu; }
    static QString plotName(Plot plot);
    // Narrower than this, the plots give the side legends' column to their data (an A/B side
    // beside the docks): the crosshair's readout still names every line.
    static constexpr int kSideLegendsFromWidth = 560;
    bool sideLegendsShown() const;
    // The choice as settings keep it: the shown plots' keys, "outstanding,interval,quality,
    // gateway". Unknown keys are ignored; a text naming none of them shows all four.
    QString shownPlotsText() const;
    void setShownPlotsText(const QString& text);

    // Moments on the time axis (faults, redeploys, lever changes): a thin line through
    // every plot and a short label at the top of the first, staggered when they crowd.
    struct Marker {
        double tS = 0;
        QString label;
    };
    void addMarkers(const QVector<Marker>& markers);
    void clearMarkers();
    const QVector<Marker>& markers() const { return m_markers; }
    // The label items as drawn (tests: their positions and texts).
    QList<QCPItemText*> markerLabels() const;

    // Which subscriptions are plotted; an empty list means all (the default).
    void setSelectedSubscriptions(const QList<SubscriptionKey>& keys);
    QList<SubscriptionKey> selectedSubscriptions() const { return m_selection; }
    // The legend toggle: hidden subscriptions stay in the legend, greyed. The in-plot legend
    // names at most kMaxLegendEntries subscriptions; beyond that it steps aside and gives its
    // rows to the plots (the Subscriptions list names them).
    void setSubscriptionHidden(SubscriptionKey key, bool hidden);
    void setHiddenSubscriptions(const QSet<SubscriptionKey>& hidden);
    const QSet<SubscriptionKey>& hiddenSubscriptions() const { return m_hidden; }
    bool isSubscriptionHidden(SubscriptionKey key) const { return m_hidden.contains(key); }
    static constexpr int kMaxLegendEntries = 8;
    // Past this many drawn subscriptions the outstanding and retry plots draw each gateway's
    // aggregate instead of a line per subscription (sum and most outstanding, longest and
    // median retry interval); a click on an aggregate line isolates that gateway's worst
    // subscriptions. The Subscriptions dock's "lines up to" box sets it.
    static constexpr int kDefaultAggregateAbove = 30;
    void setAggregateAbove(int subscriptions);
    int aggregateAbove() const { return m_aggregateAbove; }
    bool aggregated() const { return m_aggregated; }
    // The aggregate line of `gateway` ("" when the run names none), null when not drawn.
    QCPGraph* aggregateGraph(const QString& gateway, int line) const;
    static constexpr int kWorstOnClick = 5;
    // Selected, of the chosen gateway, known to the store and not hidden, in the store's order.
    QList<SubscriptionKey> visibleSubscriptions() const;

    // The run's gateways and the instances (SubscriptionKey::instance) subscribing through
    // each. With more than one, the toolbar's Gateway chooser offers "All gateways" and each
    // name; a filter whose gateway is no longer among them goes back to All.
    void setGateways(const QMap<QString, QList<int>>& instancesByGateway);
    QStringList gateways() const { return m_gatewayNames; }
    // Shows only that gateway's subscriptions and its own gateway series (subject
    // "gateway:NAME"); "" = all gateways (the subscriptions of every gateway, the run's
    // aggregate gateway series). Kept through replots, zooms, theme and presenter mode;
    // exports say it in their title ("… — gateway B").
    void setGatewayFilter(const QString& gateway);
    QString gatewayFilter() const { return m_gatewayFilter; }
    QString gatewayOf(SubscriptionKey key) const { return m_gatewayOfInstance.value(key.instance); }
    QComboBox* gatewayChooser() const { return m_gatewayCombo; }

    void setFollowLive(bool follow);
    bool followLive() const { return m_follow; }
    void setWindowSeconds(double seconds); // follow-live window, default 300
    // The history the toolbar asks to keep (whole minutes); the panel only reads its store,
    // so the store's owner applies it on retentionMinutesChanged.
    void setRetentionMinutes(int minutes);
    int retentionMinutes() const;
    double windowSeconds() const { return m_windowS; }
    // Sets every plot's time range as a user zoom / pan would (pauses follow-live).
    void setXRange(double lower, double upper);
    double xLower() const;
    double xUpper() const;
    // Back to follow-live (the Home key).
    void resetZoom();
    // Shows the whole retained time range, follow-live off (the report rendering).
    void showAll();
    // The toolbar's Fit whole run: showAll() from the run's start (0 s) when the store
    // still holds it, so a finished playback is seen whole.
    void fitWholeRun();

    // Every visible series' value at time x, one line per subscription / plot; with more
    // than kCrosshairSubscriptions visible, the busiest ones (most outstanding, then the
    // longest retry interval) and "… and N more". Aggregated, each gateway's aggregate lines
    // come first.
    static constexpr int kCrosshairSubscriptions = 6;
    QString crosshairText(double x) const;

    // The largest value each plot's axis shows (before headroom). The report's variants
    // share one scale so that, side by side, the same height means the same number.
    struct ValueScale {
        double outstanding = 0, interval = 0, quality = 0, gatewayLeft = 0, gatewayRight = 0;
        ValueScale max(const ValueScale& o) const;
    };
    ValueScale naturalValueScale() const;                       // what the visible data asks for
    void setValueScale(const std::optional<ValueScale>& scale); // nullopt: follow the data

    // What an export covers: the whole run or the visible range, said in the title.
    enum class Range { Visible, WholeRun };
    struct ExportOptions {
        QSize size; // empty: the widget's
        Range range = Range::Visible;
        QString title; // first line (scenario, variant, levers, gateway); the range is added
    };
    // "00:00–05:00 (visible range)" / "(whole run)".
    QString rangeText(Range range) const;
    // The plots with a title row (when options.title is set), at the chosen size and range.
    bool exportPng(const QString& path, QString* error, const ExportOptions& options);
    bool exportPng(const QString& path, QString* error = nullptr, QSize size = {});
    // The visible subscriptions' series over the chosen range: '#' lines say what and which
    // range, a wall-clock column (runStart + t, UTC; empty when runStart is invalid), numbers
    // rounded to what the plots resolve (3 decimals).
    struct CsvOptions {
        Range range = Range::Visible;
        QString title;
        QDateTime runStart;
    };
    bool exportCsv(const QString& path, QString* error, const CsvOptions& options);
    bool exportCsv(const QString& path, QString* error = nullptr);
    // Renders the four plots of a store (a finished variant) into a PNG without showing a
    // window. Needs a QApplication (QT_QPA_PLATFORM=offscreen when headless).
    struct RenderOptions {
        QString title;
        QVector<Marker> markers;
        std::optional<ValueScale> scale;
    };
    static bool renderVariantPng(const SeriesStore& store, const QString& path, QSize size,
                                 QString* error = nullptr, const RenderOptions& options = {});
    // The whole-run natural scale of a store (as renderVariantPng would draw it alone).
    static ValueScale wholeRunScale(const SeriesStore& store, QSize size);

    // Copies what changed into the graphs and replots now (no throttle).
    void refreshNow();

    QCustomPlot* customPlot() const { return m_plot; }
    QCPAxisRect* axisRect(Plot p) const { return m_rects[std::size_t(p)]; }
    QCPGraph* subscriptionGraph(SubscriptionKey key,
                                SubMetric metric) const; // Outstanding/IntervalS
    QCPGraph* qualityGraph(SubMetric metric) const;      // Good/Uncertain/Bad
    QCPGraph* gatewayGraph(GatewayMetric metric) const;  // RecoveryState: the recovering band
    QCPLegend* subscriptionLegend() const { return m_subLegend; }
    int replotCount() const { return m_replots; }
    // New samples wait for the next throttled replot.
    bool replotScheduled() const { return m_throttle.isActive(); }
    static constexpr int kDistinctColours = 20;
    static QColor colourFor(SubscriptionKey key);              // distinct for instances 0..19
    static QColor colourFor(SubscriptionKey key, Theme theme); // readable on its background

signals:
    void replotted();
    void followLiveChanged(bool follow);
    // A person zoomed or panned (wheel, drag): not emitted by setXRange and the like.
    void xRangeChanged(double lower, double upper);
    void retentionMinutesChanged(int minutes);
    void gatewayFilterChanged(const QString& gateway);
    void aggregateAboveChanged(int subscriptions);
    // Which subscriptions are hidden changed (legend click, the list, a call).
    void hiddenSubscriptionsChanged(const QSet<SubscriptionKey>& hidden);
    void shownPlotsChanged();

protected:
    void showEvent(QShowEvent* event) override;

private:
    struct SubscriptionGraphs;
    struct GatewayGraph;
    struct AggregateGraphs;

    void buildPlots();
    void buildToolBar(QVBoxLayout* layout);
    void buildPlotsMenu();
    // Puts the shown plots (and their side legends) in their rows, takes the others out.
    void layoutPlots();
    void fitSideLegends(); // in or out of the layout, by the plot's width (before each replot)
    QCPAxisRect* topPlot() const;    // the first shown plot: the markers' labels
    QCPAxisRect* bottomPlot() const; // the last shown plot: the time axis's labels
    void onSubscriptionsChanged();
    void onAppended();
    void onXRangeChanged(QCPAxis* source);
    void onLegendClick(QCPLegend* legend, QCPAbstractLegendItem* item);
    void onMouseMove(QMouseEvent* event);
    void applyVisibility();
    void applyThemeColours();
    void layoutMarkers(); // staggers the labels at the current scale (before each replot)
    void fitValueTicks();
    void fitSubscriptionLegend();
    void showSubscriptionLegend(bool shown);
    void syncAggregates(const QList<SubscriptionKey>& drawn);
    void isolateWorstOf(const QString& gateway);
    void syncData();
    void applyFollow();
    void rescaleValueAxes();
    void setAllXRanges(double lower, double upper);
    void hideCrosshair();
    // Puts the crosshair at the last mouse position: the time under it (which moves while
    // following live), the readout beside it, clamped inside the plot.
    void placeCrosshair(bool replotLayer);
    void tick();
    // Hidden (behind the A/B view, in a closed dock or tab) or minimized: nobody sees a
    // replot, so new samples wait (m_dirty) until the panel is seen again.
    bool seen() const;
    int columns(QCPAxisRect* rect) const;
    bool ofChosenGateway(SubscriptionKey key) const;
    void showGatewayChoice(); // the chooser's tooltip names the whole choice
    // An export's title with the gateway filter said: "… — gateway B".
    QString withGateway(const QString& title) const;
    bool eventFilter(QObject* watched, QEvent* event) override;

    const SeriesStore* m_store;
    QCustomPlot* m_plot = nullptr;
    std::array<QCPAxisRect*, kPlotCount> m_rects{};
    std::array<QCPLegend*, kPlotCount> m_sideLegends{}; // beside its plot; null: none
    std::array<bool, kPlotCount> m_shown{true, true, true, true};
    QMenu* m_plotsMenu = nullptr;
    std::array<QAction*, kPlotCount> m_plotActions{};
    QCPLegend* m_subLegend = nullptr;
    QHash<SubscriptionKey, std::shared_ptr<SubscriptionGraphs>> m_subGraphs;
    std::array<QCPGraph*, plot::kQualityBandCount> m_quality{};
    std::vector<plot::ViewFeed> m_qualityFeeds;
    std::unique_ptr<plot::QualityStack> m_qualityStack;
    std::vector<std::unique_ptr<GatewayGraph>> m_gatewayGraphs;
    QList<SubscriptionKey> m_selection;
    QSet<SubscriptionKey> m_hidden;
    Theme m_theme = Theme::Light;
    bool m_presentation = false;
    QToolBar* m_toolBar = nullptr;
    QCPItemStraightLine* m_guardLine = nullptr;
    QCPItemText* m_guardLabel = nullptr;
    QVector<Marker> m_markers;
    struct MarkerItems {
        QList<QCPItemStraightLine*> lines;
        QCPItemText* label = nullptr;
    };
    QList<MarkerItems> m_markerItems;
    QList<QCPItemStraightLine*> m_crosshairLines;
    QCPItemText* m_crosshairText = nullptr;
    QPointF m_crosshairPixel;
    bool m_crosshairOn = false;
    QSharedPointer<QCPAxisTickerTime> m_ticker;
    QTimer m_throttle;
    QPointer<QWidget> m_watchedWindow; // its un-minimizing replots what waited
    QAction* m_followAction = nullptr;
    QSpinBox* m_windowSpin = nullptr;
    QSpinBox* m_retentionSpin = nullptr;
    QComboBox* m_gatewayCombo = nullptr;
    QAction* m_gatewayComboAction = nullptr; // the chooser in the toolbar (shown with > 1 gateway)
    QStringList m_gatewayNames;
    QHash<int, QString> m_gatewayOfInstance;
    QString m_gatewayFilter;
    bool m_dirty = false;
    bool m_fullSync = true;
    bool m_settingRange = false;
    bool m_follow = true;
    double m_windowS = 300;
    quint64 m_generation = 0;
    int m_replots = 0;
    int m_legendColumns = -1;
    struct AxisTitle {
        QCPAxis* axis;
        QString full;
        QString brief;
    };
    std::vector<AxisTitle> m_axisTitles; // fitted to their plot's height before each replot
    int m_aggregateAbove = kDefaultAggregateAbove;
    bool m_aggregated = false;
    std::map<QString, std::unique_ptr<AggregateGraphs>> m_aggregates; // by gateway
    std::optional<ValueScale> m_fixedScale;
    int m_exportWidth = 0; // while exporting: the image width, for the per-column reduction
};

} // namespace stormwatch
